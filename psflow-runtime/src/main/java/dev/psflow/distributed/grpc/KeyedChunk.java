package dev.psflow.distributed.grpc;

/** One message of a RecvTensors answer: a {@link TensorChunk} of the tensor of the request's key {@code key}. */
record KeyedChunk(int key, TensorChunk chunk) {}
