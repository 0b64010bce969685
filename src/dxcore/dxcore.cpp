// libdxcore: DXCoreCreateAdapterFactory (the factory, adapter list and adapter are being added).
