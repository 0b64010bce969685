// The info queue: storage, limits, filters, the GetMessage size protocol, callbacks.
#include <gtest/gtest.h>

#include <vector>

#include "test_util.h"

using namespace freedml_test;

namespace {

class D3D12InfoQueue : public ::testing::Test {
protected:
    void SetUp() override {
        device_ = CreateDevice();
        ASSERT_EQ(device_->QueryInterface(__uuidof(ID3D12InfoQueue1), reinterpret_cast<void**>(&queue_)), S_OK);
    }
    void TearDown() override {
        queue_->Release();
        EXPECT_EQ(device_->Release(), 0u);
    }
    std::string Message(UINT64 index) {
        SIZE_T length = 0;
        EXPECT_EQ(queue_->GetMessage(index, nullptr, &length), S_OK);
        std::vector<unsigned char> bytes(length);
        auto* message = reinterpret_cast<D3D12_MESSAGE*>(bytes.data());
        EXPECT_EQ(queue_->GetMessage(index, message, &length), S_OK);
        return message->pDescription;
    }
    void BadCall() {
        D3D12_RESOURCE_DESC desc = BufferDesc(0);
        D3D12_HEAP_PROPERTIES heap = HeapProperties(D3D12_HEAP_TYPE_DEFAULT);
        void* resource = nullptr;
        device_->CreateCommittedResource(&heap, D3D12_HEAP_FLAG_NONE, &desc, D3D12_RESOURCE_STATE_COMMON, nullptr,
                                         __uuidof(ID3D12Resource), &resource);
    }

    ID3D12Device* device_ = nullptr;
    ID3D12InfoQueue1* queue_ = nullptr;
};

TEST_F(D3D12InfoQueue, StoresDeviceErrors) {
    queue_->SetMuteDebugOutput(TRUE);
    EXPECT_EQ(queue_->GetNumStoredMessages(), 0u);
    device_->SetName(L"main device");
    BadCall();
    ASSERT_EQ(queue_->GetNumStoredMessages(), 1u);
    std::string text = Message(0);
    EXPECT_NE(text.find("CreateCommittedResource: D3D12_RESOURCE_DESC.Width is 0"), std::string::npos) << text;
    EXPECT_NE(text.find("device 'main device'"), std::string::npos) << text;
    SIZE_T small = sizeof(D3D12_MESSAGE);
    std::vector<unsigned char> bytes(small);
    EXPECT_EQ(queue_->GetMessage(0, reinterpret_cast<D3D12_MESSAGE*>(bytes.data()), &small), E_INVALIDARG);
    EXPECT_EQ(queue_->GetMessage(5, nullptr, &small), E_INVALIDARG);
    EXPECT_EQ(queue_->GetMessage(0, nullptr, nullptr), E_INVALIDARG);
    queue_->ClearStoredMessages();
    EXPECT_EQ(queue_->GetNumStoredMessages(), 0u);
}

TEST_F(D3D12InfoQueue, CountLimitDiscardsTheOldest) {
    EXPECT_EQ(queue_->GetMessageCountLimit(), static_cast<UINT64>(D3D12_INFO_QUEUE_DEFAULT_MESSAGE_COUNT_LIMIT));
    EXPECT_EQ(queue_->SetMessageCountLimit(2), S_OK);
    queue_->AddApplicationMessage(D3D12_MESSAGE_SEVERITY_INFO, "one");
    queue_->AddApplicationMessage(D3D12_MESSAGE_SEVERITY_INFO, "two");
    queue_->AddApplicationMessage(D3D12_MESSAGE_SEVERITY_INFO, "three");
    EXPECT_EQ(queue_->GetNumStoredMessages(), 2u);
    EXPECT_EQ(queue_->GetNumMessagesDiscardedByMessageCountLimit(), 1u);
    EXPECT_EQ(Message(0), "two");
    EXPECT_EQ(Message(1), "three");
    EXPECT_EQ(queue_->AddApplicationMessage(D3D12_MESSAGE_SEVERITY_INFO, nullptr), E_INVALIDARG);
}

TEST_F(D3D12InfoQueue, StorageAndRetrievalFilters) {
    EXPECT_EQ(queue_->GetStorageFilterStackSize(), 1u);
    D3D12_MESSAGE_SEVERITY deny[] = {D3D12_MESSAGE_SEVERITY_INFO};
    D3D12_INFO_QUEUE_FILTER filter{};
    filter.DenyList.NumSeverities = 1;
    filter.DenyList.pSeverityList = deny;
    EXPECT_EQ(queue_->PushStorageFilter(&filter), S_OK);
    EXPECT_EQ(queue_->GetStorageFilterStackSize(), 2u);
    queue_->AddApplicationMessage(D3D12_MESSAGE_SEVERITY_INFO, "dropped");
    queue_->AddApplicationMessage(D3D12_MESSAGE_SEVERITY_WARNING, "kept");
    EXPECT_EQ(queue_->GetNumStoredMessages(), 1u);
    EXPECT_EQ(queue_->GetNumMessagesDeniedByStorageFilter(), 1u);
    EXPECT_EQ(queue_->GetNumMessagesAllowedByStorageFilter(), 1u);

    SIZE_T length = 0;
    ASSERT_EQ(queue_->GetStorageFilter(nullptr, &length), S_OK);
    EXPECT_EQ(length, sizeof(D3D12_INFO_QUEUE_FILTER) + sizeof(D3D12_MESSAGE_SEVERITY));
    std::vector<unsigned char> bytes(length);
    auto* read = reinterpret_cast<D3D12_INFO_QUEUE_FILTER*>(bytes.data());
    ASSERT_EQ(queue_->GetStorageFilter(read, &length), S_OK);
    ASSERT_EQ(read->DenyList.NumSeverities, 1u);
    EXPECT_EQ(read->DenyList.pSeverityList[0], D3D12_MESSAGE_SEVERITY_INFO);
    SIZE_T tooSmall = sizeof(D3D12_INFO_QUEUE_FILTER);
    EXPECT_EQ(queue_->GetStorageFilter(read, &tooSmall), E_INVALIDARG);
    queue_->PopStorageFilter();
    EXPECT_EQ(queue_->GetStorageFilterStackSize(), 1u);
    queue_->PopStorageFilter();  // the bottom filter stays
    EXPECT_EQ(queue_->GetStorageFilterStackSize(), 1u);

    queue_->AddApplicationMessage(D3D12_MESSAGE_SEVERITY_ERROR, "an error");
    D3D12_MESSAGE_SEVERITY onlyErrors[] = {D3D12_MESSAGE_SEVERITY_ERROR};
    D3D12_INFO_QUEUE_FILTER retrieval{};
    retrieval.AllowList.NumSeverities = 1;
    retrieval.AllowList.pSeverityList = onlyErrors;
    EXPECT_EQ(queue_->AddRetrievalFilterEntries(&retrieval), S_OK);
    EXPECT_EQ(queue_->GetNumStoredMessages(), 2u);
    EXPECT_EQ(queue_->GetNumStoredMessagesAllowedByRetrievalFilter(), 1u);
    EXPECT_EQ(Message(0), "an error");
    queue_->ClearRetrievalFilter();
    EXPECT_EQ(queue_->GetNumStoredMessagesAllowedByRetrievalFilter(), 2u);
}

struct Received {
    std::vector<std::string> texts;
};

void __stdcall OnMessage(D3D12_MESSAGE_CATEGORY, D3D12_MESSAGE_SEVERITY, D3D12_MESSAGE_ID, LPCSTR text,
                         void* context) {
    static_cast<Received*>(context)->texts.push_back(text);
}

TEST_F(D3D12InfoQueue, RegisteredCallbacks) {
    Received received;
    DWORD cookie = 0;
    ASSERT_EQ(queue_->RegisterMessageCallback(&OnMessage, D3D12_MESSAGE_CALLBACK_FLAG_NONE, &received, &cookie), S_OK);
    BadCall();
    ASSERT_EQ(received.texts.size(), 1u);
    EXPECT_NE(received.texts[0].find("Width is 0"), std::string::npos);
    EXPECT_EQ(queue_->UnregisterMessageCallback(cookie), S_OK);
    EXPECT_EQ(queue_->UnregisterMessageCallback(cookie), E_INVALIDARG);
    BadCall();
    EXPECT_EQ(received.texts.size(), 1u);
    EXPECT_EQ(queue_->SetBreakOnSeverity(D3D12_MESSAGE_SEVERITY_ERROR, TRUE), S_OK);
    EXPECT_TRUE(queue_->GetBreakOnSeverity(D3D12_MESSAGE_SEVERITY_ERROR));
}

TEST_F(D3D12InfoQueue, TheInfoQueueSharesTheDeviceIdentity) {
    ID3D12Device* device = nullptr;
    ASSERT_EQ(queue_->QueryInterface(__uuidof(ID3D12Device), reinterpret_cast<void**>(&device)), S_OK);
    EXPECT_EQ(device, device_);
    EXPECT_EQ(RefCount(device_), 3u);  // the test's device, its info queue, and this one
    device->Release();
}

}  // namespace
