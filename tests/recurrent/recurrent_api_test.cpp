// RNN, LSTM and GRU through the public API: invalid descs are refused with messages that name the
// field and the values, and an operator keeps its own copy of the ActivationDescs array (changing
// the application's array after CreateOperator changes nothing).
#include <cmath>

#include "dml_fixture.h"

namespace freedml_test {
namespace {

class RecurrentTest : public DmlTest {};

constexpr auto F32 = DML_TENSOR_DATA_TYPE_FLOAT32;

TEST_F(RecurrentTest, InvalidLstmDescsAreRefused) {
    // seq 3, batch 2, input 5, hidden 4, one direction.
    Tensor x(F32, {1, 3, 2, 5}), w(F32, {1, 1, 16, 5}), r(F32, {1, 1, 16, 4}), y(F32, {3, 1, 2, 4});
    Tensor bias(F32, {1, 1, 1, 32}), badBias(F32, {1, 1, 1, 16}), peephole(F32, {1, 1, 1, 12});
    Tensor badPeephole(F32, {1, 1, 1, 8}), h0(F32, {1, 1, 2, 4}), badH0(F32, {1, 1, 3, 4});
    Tensor lengths(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 1, 2}), floatLengths(F32, {1, 1, 1, 2});
    Tensor x3(F32, {3, 2, 5}), wOdd(F32, {1, 1, 15, 5}), wInput(F32, {1, 1, 16, 6}), ySeq(F32, {2, 1, 2, 4});
    Tensor yF16(DML_TENSOR_DATA_TYPE_FLOAT16, {3, 1, 2, 4}), xI32(DML_TENSOR_DATA_TYPE_INT32, {1, 3, 2, 5});
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid{};
    DML_ACTIVATION_TANH_OPERATOR_DESC tanh{};
    DML_ACTIVATION_GELU_OPERATOR_DESC gelu{};
    DML_OPERATOR_DESC acts[6] = {{DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid}, {DML_OPERATOR_ACTIVATION_TANH, &tanh},
                                 {DML_OPERATOR_ACTIVATION_TANH, &tanh},       {DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid},
                                 {DML_OPERATOR_ACTIVATION_TANH, &tanh},       {DML_OPERATOR_ACTIVATION_TANH, &tanh}};
    auto base = [&] {
        DML_LSTM_OPERATOR_DESC d{};
        d.InputTensor = &x.desc, d.WeightTensor = &w.desc, d.RecurrenceTensor = &r.desc;
        d.OutputSequenceTensor = &y.desc;
        d.ActivationDescCount = 3, d.ActivationDescs = acts;
        d.Direction = DML_RECURRENT_NETWORK_DIRECTION_FORWARD;
        return d;
    };
    // The base desc is valid: the refusals below are each one field's.
    {
        DML_LSTM_OPERATOR_DESC d = base();
        DML_OPERATOR_DESC opDesc{DML_OPERATOR_LSTM, &d};
        ComPtr<IDMLOperator> op;
        ASSERT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK) << Messages();
    }
    DML_LSTM_OPERATOR_DESC d = base();
    d.InputTensor = &x3.desc;
    Refused(DML_OPERATOR_LSTM, &d, "InputTensor has sizes {3, 2, 5}; it must be 4-D");
    d = base(), d.InputTensor = &xI32.desc;
    Refused(DML_OPERATOR_LSTM, &d, "InputTensor is INT32; DML_OPERATOR_LSTM takes FLOAT32, FLOAT16");
    d = base(), d.OutputSequenceTensor = &yF16.desc;
    Refused(DML_OPERATOR_LSTM, &d, "OutputSequenceTensor is FLOAT16 but InputTensor is FLOAT32");
    d = base(), d.WeightTensor = &wOdd.desc;
    Refused(DML_OPERATOR_LSTM, &d, "WeightTensor has sizes {1, 1, 15, 5}");
    d = base(), d.WeightTensor = &wInput.desc;
    Refused(DML_OPERATOR_LSTM, &d, "WeightTensor {1, 1, 16, 6} has input_size 6");
    d = base(), d.BiasTensor = &badBias.desc;
    Refused(DML_OPERATOR_LSTM, &d, "BiasTensor has sizes {1, 1, 1, 16}; it must be {1, 1, 1, 32}");
    d = base(), d.BiasTensor = &bias.desc, d.PeepholeTensor = &badPeephole.desc;
    Refused(DML_OPERATOR_LSTM, &d, "PeepholeTensor has sizes {1, 1, 1, 8}; it must be {1, 1, 1, 12}");
    d = base(), d.HiddenInitTensor = &badH0.desc;
    Refused(DML_OPERATOR_LSTM, &d, "HiddenInitTensor has sizes {1, 1, 3, 4}; it must be {1, 1, 2, 4}");
    d = base(), d.HiddenInitTensor = &h0.desc, d.SequenceLengthsTensor = &floatLengths.desc;
    Refused(DML_OPERATOR_LSTM, &d, "SequenceLengthsTensor is FLOAT32; it must be UINT32");
    d = base(), d.OutputSequenceTensor = &ySeq.desc;
    Refused(DML_OPERATOR_LSTM, &d, "OutputSequenceTensor has sizes {2, 1, 2, 4}; it must be {3, 1, 2, 4}");
    d = base(), d.ActivationDescCount = 2;
    Refused(DML_OPERATOR_LSTM, &d, "ActivationDescCount is 2; DML_OPERATOR_LSTM with Direction "
                                   "DML_RECURRENT_NETWORK_DIRECTION_FORWARD takes 3");
    d = base(), d.Direction = DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL, d.ActivationDescCount = 6;
    Refused(DML_OPERATOR_LSTM, &d, "num_directions (2 for Direction DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL)");
    d = base(), d.ActivationDescs = nullptr;
    Refused(DML_OPERATOR_LSTM, &d, "ActivationDescs is null but ActivationDescCount is 3");
    DML_OPERATOR_DESC withGelu[3] = {{DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid},
                                     {DML_OPERATOR_ACTIVATION_GELU, &gelu},
                                     {DML_OPERATOR_ACTIVATION_TANH, &tanh}};
    d = base(), d.ActivationDescs = withGelu;
    Refused(DML_OPERATOR_LSTM, &d, "ActivationDescs[1] is DML_OPERATOR_ACTIVATION_GELU");
    DML_ACTIVATION_TANH_OPERATOR_DESC tanhWithTensor{&x.desc, &x.desc};
    DML_OPERATOR_DESC withTensor[3] = {{DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid},
                                       {DML_OPERATOR_ACTIVATION_TANH, &tanhWithTensor},
                                       {DML_OPERATOR_ACTIVATION_TANH, &tanh}};
    d = base(), d.ActivationDescs = withTensor;
    Refused(DML_OPERATOR_LSTM, &d, "ActivationDescs[1]: the fused DML_OPERATOR_ACTIVATION_TANH has a non-null");
    d = base(), d.UseClipThreshold = TRUE, d.ClipThreshold = -1.0f;
    Refused(DML_OPERATOR_LSTM, &d, "ClipThreshold (-1) must be a number of at least 0");
    Tensor ownedW(F32, {1, 1, 16, 5}, {}, DML_TENSOR_FLAG_OWNED_BY_DML);
    d = base(), d.WeightTensor = &ownedW.desc;
    Refused(DML_OPERATOR_LSTM, &d, "WeightTensor has DML_TENSOR_FLAG_OWNED_BY_DML; DML_OPERATOR_LSTM does not accept");
    d = base(), d.Direction = static_cast<DML_RECURRENT_NETWORK_DIRECTION>(3);
    Refused(DML_OPERATOR_LSTM, &d, "Direction (3) is not a DML_RECURRENT_NETWORK_DIRECTION value");
    (void)lengths;
}

TEST_F(RecurrentTest, InvalidRnnAndGruDescsAreRefused) {
    Tensor x(F32, {1, 2, 1, 3}), w1(F32, {1, 1, 4, 3}), r1(F32, {1, 1, 4, 4}), y(F32, {1, 1, 1, 4});
    Tensor w3(F32, {1, 1, 12, 3}), r3(F32, {1, 1, 12, 4}), r3bad(F32, {1, 1, 12, 3});
    DML_ACTIVATION_TANH_OPERATOR_DESC tanh{};
    DML_OPERATOR_DESC acts[2] = {{DML_OPERATOR_ACTIVATION_TANH, &tanh}, {DML_OPERATOR_ACTIVATION_TANH, &tanh}};
    DML_RNN_OPERATOR_DESC rnn{&x.desc, &w1.desc, &r1.desc, nullptr, nullptr, nullptr, nullptr, &y.desc, 2, acts,
                              DML_RECURRENT_NETWORK_DIRECTION_BACKWARD};
    Refused(DML_OPERATOR_RNN, &rnn, "ActivationDescCount is 2; DML_OPERATOR_RNN with Direction "
                                    "DML_RECURRENT_NETWORK_DIRECTION_BACKWARD takes 1");
    DML_GRU_OPERATOR_DESC gru{&x.desc, &w3.desc, &r3bad.desc, nullptr, nullptr, nullptr, nullptr, &y.desc, 2, acts,
                              DML_RECURRENT_NETWORK_DIRECTION_FORWARD, FALSE};
    Refused(DML_OPERATOR_GRU, &gru, "RecurrenceTensor has sizes {1, 1, 12, 3}; it must be {1, 1, 12, 4}");
    gru.RecurrenceTensor = &r3.desc;
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_GRU, &gru};
    ComPtr<IDMLOperator> op;
    EXPECT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK) << Messages();
}

// One RNN step, h = f(W x + R h0), with f given as RELU; the application's activation array is
// overwritten with SIGMOID after CreateOperator, which must not change the result.
TEST_F(RecurrentTest, OperatorKeepsItsOwnActivations) {
    Tensor x(F32, {1, 1, 1, 2}), w(F32, {1, 1, 3, 2}), r(F32, {1, 1, 3, 3}), h0(F32, {1, 1, 1, 3});
    Tensor y(F32, {1, 1, 1, 3});
    DML_ACTIVATION_RELU_OPERATOR_DESC relu{};
    DML_ACTIVATION_SIGMOID_OPERATOR_DESC sigmoid{};
    DML_OPERATOR_DESC acts[1] = {{DML_OPERATOR_ACTIVATION_RELU, &relu}};
    DML_RNN_OPERATOR_DESC desc{&x.desc, &w.desc, &r.desc, nullptr, &h0.desc, nullptr, nullptr, &y.desc, 1, acts,
                               DML_RECURRENT_NETWORK_DIRECTION_FORWARD};
    DML_OPERATOR_DESC opDesc{DML_OPERATOR_RNN, &desc};
    ComPtr<IDMLOperator> op;
    ASSERT_EQ(dml->CreateOperator(&opDesc, IID_PPV_ARGS(&op)), S_OK) << Messages();
    acts[0] = {DML_OPERATOR_ACTIVATION_SIGMOID, &sigmoid};
    ComPtr<IDMLCompiledOperator> compiled;
    ASSERT_EQ(dml->CompileOperator(op.Get(), DML_EXECUTION_FLAG_NONE, IID_PPV_ARGS(&compiled)), S_OK) << Messages();

    const std::vector<float> xv = {1.0f, -2.0f}, wv = {0.5f, 0.25f, -1.0f, 0.5f, 2.0f, 1.0f};
    const std::vector<float> rv = {0.1f, 0.2f, 0.3f, -0.4f, 0.5f, -0.6f, 0.7f, 0.8f, -0.9f}, hv = {1.0f, 0.5f, -1.0f};
    std::vector<double> expected(3);
    for (int j = 0; j < 3; ++j) {
        double v = double(wv[j * 2]) * xv[0] + double(wv[j * 2 + 1]) * xv[1];
        for (int k = 0; k < 3; ++k) v += double(rv[j * 3 + k]) * hv[k];
        expected[j] = v > 0 ? v : 0.0;
    }
    ASSERT_NE(expected[2], 0.0);  // the relu passes one value and stops another: sigmoid differs from both
    ASSERT_EQ(expected[1], 0.0);
    auto bx = Buffer(x.Bytes()), bw = Buffer(w.Bytes()), br = Buffer(r.Bytes()), bh = Buffer(h0.Bytes());
    auto by = Buffer(y.Bytes());
    Upload(bx.Get(), xv), Upload(bw.Get(), wv), Upload(br.Get(), rv), Upload(bh.Get(), hv);
    auto persistent = Initialize(compiled.Get());
    DML_BUFFER_BINDING ix{bx.Get(), 0, x.Bytes()}, iw{bw.Get(), 0, w.Bytes()}, ir{br.Get(), 0, r.Bytes()};
    DML_BUFFER_BINDING ih{bh.Get(), 0, h0.Bytes()}, oy{by.Get(), 0, y.Bytes()};
    Dispatch(compiled.Get(),
             {BufferBinding(&ix), BufferBinding(&iw), BufferBinding(&ir), NoBinding(), BufferBinding(&ih), NoBinding()},
             {NoBinding(), BufferBinding(&oy)}, persistent.Get());
    auto got = ReadbackAs<float>(by.Get(), 3);
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(got[j], expected[j], 1e-6) << j;
}

}  // namespace
}  // namespace freedml_test
