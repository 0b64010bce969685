"""Runs inside a Python 3.10 with tensorflow-cpu 2.10 and tensorflow-directml-plugin installed,
with TF_DIRECTML_PATH and LD_LIBRARY_PATH pointing at FreeDML's libraries (run_tensorflow_directml.py
sets them up). Each check runs on the plugin's device and on TensorFlow's CPU device and compares."""
import os
import sys

import numpy as np
import tensorflow as tf


def fail(text):
    print("FAIL: " + text, flush=True)
    sys.exit(1)


def dml_device():
    # The plugin registers its adapters under the GPU device type.
    devices = tf.config.list_physical_devices("GPU") + tf.config.list_physical_devices("DML")
    print("physical devices:", tf.config.list_physical_devices(), flush=True)
    if not devices:
        fail("the DirectML plugin lists no device: its adapter enumeration through FreeDML found nothing "
             "(the plugin's log above says why; FREEDML_DEBUG=1 messages name the call FreeDML refused)")
    kind = devices[0].device_type
    return "/%s:0" % kind


def on(device, fn):
    with tf.device(device):
        result = fn()
    placed = result.device if hasattr(result, "device") else ""
    return result, placed


def compare(name, dml, cpu, rtol, atol):
    dml_value, dml_placed = dml
    cpu_value, _ = cpu
    print("%s: ran on %s" % (name, dml_placed), flush=True)
    if "CPU" in dml_placed.upper():
        fail("%s was placed on %s, not on the DirectML device" % (name, dml_placed))
    np.testing.assert_allclose(np.asarray(dml_value), np.asarray(cpu_value), rtol=rtol, atol=atol,
                               err_msg=name + ": the DirectML device and TensorFlow's CPU device disagree")


def main():
    device = dml_device()
    rng = np.random.default_rng(16)

    a = rng.standard_normal((3, 5, 7)).astype(np.float32)
    b = rng.standard_normal((3, 5, 7)).astype(np.float32)
    compare("tf.add", on(device, lambda: tf.add(a, b)), on("/CPU:0", lambda: tf.add(a, b)), 0, 0)

    x = rng.standard_normal((64, 48)).astype(np.float32)
    y = rng.standard_normal((48, 32)).astype(np.float32)
    compare("tf.matmul", on(device, lambda: tf.matmul(x, y)), on("/CPU:0", lambda: tf.matmul(x, y)), 1e-5, 1e-5)

    # A small Keras model with fixed weights, predicted on each device.
    inputs = rng.standard_normal((8, 10)).astype(np.float32)
    tf.keras.utils.set_random_seed(16)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(16, activation="relu", input_shape=(10,)),
        tf.keras.layers.Dense(4, activation="softmax"),
    ])
    weights = model.get_weights()

    def predict():
        model.set_weights(weights)
        return tf.convert_to_tensor(model(inputs, training=False))

    compare("keras predict", on(device, predict), on("/CPU:0", predict), 1e-5, 1e-6)

    if os.environ.get("FREEDML_TF_TRAIN", "1") == "1":
        # One SGD step on each device from the same weights; the updated weights must agree.
        labels = rng.integers(0, 4, size=(8,))

        def train_step():
            model.set_weights(weights)
            optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)
            with tf.GradientTape() as tape:
                loss = tf.keras.losses.sparse_categorical_crossentropy(labels, model(inputs, training=True))
                loss = tf.reduce_mean(loss)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return tf.concat([tf.reshape(v, [-1]) for v in model.trainable_variables], axis=0)

        compare("keras training step", on(device, train_step), on("/CPU:0", train_step), 1e-4, 1e-5)

    print("PASS: tf.add, tf.matmul and a Keras prediction%s agree with TensorFlow's CPU device"
          % (" and a training step" if os.environ.get("FREEDML_TF_TRAIN", "1") == "1" else ""), flush=True)


if __name__ == "__main__":
    main()
