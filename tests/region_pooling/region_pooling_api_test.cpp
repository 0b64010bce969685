// The region pooling family (ROI_POOLING, ROI_ALIGN, ROI_ALIGN1, ROI_ALIGN_GRAD) through the public
// API: invalid descs are refused with messages that name the field and the values, and valid ones
// are accepted (the computed values are in the conformance suite, cases/region_pooling.json and
// cases/region_pooling_grad.json).
#include "dml_fixture.h"

namespace freedml_test {
namespace {

class RegionPoolingTest : public DmlTest {};

TEST_F(RegionPoolingTest, RoiPoolingDescsAreChecked) {
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 8, 8}), rois(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 4, 5});
    Tensor out(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 3, 2, 5}), outF16(DML_TENSOR_DATA_TYPE_FLOAT16, {4, 3, 2, 5});
    Tensor rois4(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 4, 4}), wrongOut(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 3, 5, 2});
    Tensor inI32(DML_TENSOR_DATA_TYPE_INT32, {2, 3, 8, 8}), in3d(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 8, 8});
    DML_ROI_POOLING_OPERATOR_DESC d{&in.desc, &rois.desc, &out.desc, 0.5f, {5, 2}};
    Accepted(DML_OPERATOR_ROI_POOLING, &d);
    d.PooledSize = {0, 2};
    Refused(DML_OPERATOR_ROI_POOLING, &d, "PooledSize is {Width 0, Height 2}; both must be at least 1");
    d = {&in.desc, &rois4.desc, &out.desc, 0.5f, {5, 2}};
    Refused(DML_OPERATOR_ROI_POOLING, &d, "ROITensor has sizes {1, 1, 4, 4}; it must be {1, 1, NumROIs, 5}");
    d = {&in.desc, &rois.desc, &wrongOut.desc, 0.5f, {5, 2}};
    Refused(DML_OPERATOR_ROI_POOLING, &d, "OutputTensor has sizes {4, 3, 5, 2}");
    d = {&in.desc, &rois.desc, &outF16.desc, 0.5f, {5, 2}};
    Refused(DML_OPERATOR_ROI_POOLING, &d, "OutputTensor has data type FLOAT16, but InputTensor is FLOAT32");
    d = {&inI32.desc, &rois.desc, &out.desc, 0.5f, {5, 2}};
    Refused(DML_OPERATOR_ROI_POOLING, &d, "InputTensor has data type INT32");
    d = {&in3d.desc, &rois.desc, &out.desc, 0.5f, {5, 2}};
    Refused(DML_OPERATOR_ROI_POOLING, &d, "InputTensor has DimensionCount 3; it must be 4");
}

TEST_F(RegionPoolingTest, RoiAlignDescsAreChecked) {
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT16, {2, 3, 8, 8}), rois(DML_TENSOR_DATA_TYPE_FLOAT16, {1, 4, 4});
    Tensor batches(DML_TENSOR_DATA_TYPE_UINT64, {1, 4}), out(DML_TENSOR_DATA_TYPE_FLOAT16, {4, 3, 2, 2});
    Tensor roisF32(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 4}), rois5(DML_TENSOR_DATA_TYPE_FLOAT16, {4, 5});
    Tensor roisLead(DML_TENSOR_DATA_TYPE_FLOAT16, {2, 4, 4}), batchesI32(DML_TENSOR_DATA_TYPE_INT32, {4});
    Tensor batches3(DML_TENSOR_DATA_TYPE_UINT32, {3}), out5(DML_TENSOR_DATA_TYPE_FLOAT16, {5, 3, 2, 2});
    Tensor outChannels(DML_TENSOR_DATA_TYPE_FLOAT16, {4, 2, 2, 2});
    DML_ROI_ALIGN_OPERATOR_DESC d{&in.desc, &rois.desc, &batches.desc, &out.desc,
                                  DML_REDUCE_FUNCTION_AVERAGE, DML_INTERPOLATION_MODE_LINEAR, 1.0f, 1.0f, 0.0f, 1, 4};
    Accepted(DML_OPERATOR_ROI_ALIGN, &d);
    d.ReductionFunction = DML_REDUCE_FUNCTION_SUM;
    Refused(DML_OPERATOR_ROI_ALIGN, &d, "ReductionFunction is DML_REDUCE_FUNCTION_SUM");
    d.ReductionFunction = DML_REDUCE_FUNCTION_MAX;
    d.InterpolationMode = static_cast<DML_INTERPOLATION_MODE>(2);
    Refused(DML_OPERATOR_ROI_ALIGN, &d, "InterpolationMode (2) is not a DML_INTERPOLATION_MODE value");
    d.InterpolationMode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
    Accepted(DML_OPERATOR_ROI_ALIGN, &d);
    d.MinimumSamplesPerOutput = 0;
    Refused(DML_OPERATOR_ROI_ALIGN, &d, "MinimumSamplesPerOutput is 0; it must be at least 1");
    d.MinimumSamplesPerOutput = 5;
    Refused(DML_OPERATOR_ROI_ALIGN, &d, "MaximumSamplesPerOutput (4) is less than MinimumSamplesPerOutput (5)");
    d.MinimumSamplesPerOutput = 1;
    d.ROITensor = &roisF32.desc;
    Refused(DML_OPERATOR_ROI_ALIGN, &d, "ROITensor has data type FLOAT32, but InputTensor is FLOAT16");
    d.ROITensor = &rois5.desc;
    Refused(DML_OPERATOR_ROI_ALIGN, &d, "ROITensor has sizes {4, 5}; with 4 regions it must be {NumROIs, 4}");
    d.ROITensor = &roisLead.desc;
    Refused(DML_OPERATOR_ROI_ALIGN, &d, "ROITensor has sizes {2, 4, 4}");
    d.ROITensor = &rois.desc;
    d.BatchIndicesTensor = &batchesI32.desc;
    Refused(DML_OPERATOR_ROI_ALIGN, &d, "BatchIndicesTensor has data type INT32");
    d.BatchIndicesTensor = &batches3.desc;
    Refused(DML_OPERATOR_ROI_ALIGN, &d, "BatchIndicesTensor has sizes {3}; with 4 regions");
    d.BatchIndicesTensor = &batches.desc;
    d.OutputTensor = &out5.desc;
    Refused(DML_OPERATOR_ROI_ALIGN, &d, "OutputTensor has sizes {5, 3, 2, 2}; for 4 regions");
    d.OutputTensor = &outChannels.desc;
    Refused(DML_OPERATOR_ROI_ALIGN, &d, "InputTensor's 3 channels");
}

TEST_F(RegionPoolingTest, RoiAlign1DescsAreChecked) {
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 2, 5, 5}), rois(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 1, 3, 4});
    Tensor batches(DML_TENSOR_DATA_TYPE_UINT32, {1, 1, 1, 3}), out(DML_TENSOR_DATA_TYPE_FLOAT32, {3, 2, 4, 4});
    DML_ROI_ALIGN1_OPERATOR_DESC d{&in.desc, &rois.desc, &batches.desc, &out.desc, DML_REDUCE_FUNCTION_MAX,
                                   DML_INTERPOLATION_MODE_LINEAR, 0.5f, 0.25f, 0.0f, 0.0f, -1.0f, 1, 1, TRUE};
    Accepted(DML_OPERATOR_ROI_ALIGN1, &d);
    d.ReductionFunction = DML_REDUCE_FUNCTION_MIN;
    Refused(DML_OPERATOR_ROI_ALIGN1, &d, "DML_OPERATOR_ROI_ALIGN1 accepts DML_REDUCE_FUNCTION_AVERAGE or");
    d.ReductionFunction = DML_REDUCE_FUNCTION_AVERAGE;
    d.MaximumSamplesPerOutput = 0;
    Refused(DML_OPERATOR_ROI_ALIGN1, &d, "MaximumSamplesPerOutput (0) is less than MinimumSamplesPerOutput (1)");
}

TEST_F(RegionPoolingTest, RoiAlignGradDescsAreChecked) {
    Tensor in(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 6, 6}), dy(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 3, 2, 2});
    Tensor rois(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 4}), batches(DML_TENSOR_DATA_TYPE_UINT32, {4});
    Tensor dx(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 6, 6}), droi(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 4});
    Tensor dxF16(DML_TENSOR_DATA_TYPE_FLOAT16, {2, 3, 6, 6}), dxOther(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 3, 6, 7});
    Tensor droiLead(DML_TENSOR_DATA_TYPE_FLOAT32, {1, 4, 4}), batches64(DML_TENSOR_DATA_TYPE_UINT64, {4});
    Tensor dyChannels(DML_TENSOR_DATA_TYPE_FLOAT32, {4, 2, 2, 2}), dyI32(DML_TENSOR_DATA_TYPE_INT32, {4, 3, 2, 2});
    DML_ROI_ALIGN_GRAD_OPERATOR_DESC d{&in.desc, &dy.desc, &rois.desc, &batches.desc, &dx.desc, &droi.desc,
                                       DML_REDUCE_FUNCTION_AVERAGE, DML_INTERPOLATION_MODE_LINEAR, 1.0f, 1.0f,
                                       0.5f, -0.5f, 1, 4, FALSE};
    Accepted(DML_OPERATOR_ROI_ALIGN_GRAD, &d);
    // Either output alone; no InputTensor for an AVERAGE that writes only OutputGradientTensor.
    d.OutputROIGradientTensor = nullptr;
    d.InputTensor = nullptr;
    Accepted(DML_OPERATOR_ROI_ALIGN_GRAD, &d);
    d.ReductionFunction = DML_REDUCE_FUNCTION_MAX;
    Refused(DML_OPERATOR_ROI_ALIGN_GRAD, &d,
            "InputTensor is null, but ReductionFunction is DML_REDUCE_FUNCTION_MAX");
    d.ReductionFunction = DML_REDUCE_FUNCTION_AVERAGE;
    d.OutputGradientTensor = nullptr;
    Refused(DML_OPERATOR_ROI_ALIGN_GRAD, &d, "OutputGradientTensor and OutputROIGradientTensor are both null");
    d.OutputROIGradientTensor = &droi.desc;
    Refused(DML_OPERATOR_ROI_ALIGN_GRAD, &d, "InputTensor is null, but OutputROIGradientTensor is bound");
    d.InputTensor = &in.desc;
    Accepted(DML_OPERATOR_ROI_ALIGN_GRAD, &d);
    d.OutputGradientTensor = &dx.desc;
    d.OutputROIGradientTensor = &droiLead.desc;
    Refused(DML_OPERATOR_ROI_ALIGN_GRAD, &d,
            "OutputROIGradientTensor has sizes {1, 4, 4}, but ROITensor has {4, 4}; they must match");
    d.OutputROIGradientTensor = &droi.desc;
    d.OutputGradientTensor = &dxF16.desc;
    Refused(DML_OPERATOR_ROI_ALIGN_GRAD, &d,
            "OutputGradientTensor has data type FLOAT16, but InputGradientTensor is FLOAT32");
    d.OutputGradientTensor = &dxOther.desc;
    Refused(DML_OPERATOR_ROI_ALIGN_GRAD, &d,
            "OutputGradientTensor has sizes {2, 3, 6, 7}, but InputTensor has {2, 3, 6, 6}");
    d.OutputGradientTensor = &dx.desc;
    d.BatchIndicesTensor = &batches64.desc;
    Refused(DML_OPERATOR_ROI_ALIGN_GRAD, &d, "BatchIndicesTensor has data type UINT64; DML_OPERATOR_ROI_ALIGN_GRAD "
                                             "accepts UINT32");
    d.BatchIndicesTensor = &batches.desc;
    d.InputGradientTensor = &dyChannels.desc;
    Refused(DML_OPERATOR_ROI_ALIGN_GRAD, &d,
            "InputGradientTensor has sizes {4, 2, 2, 2}; for 4 regions and 3 channels");
    d.InputGradientTensor = &dyI32.desc;
    Refused(DML_OPERATOR_ROI_ALIGN_GRAD, &d, "InputGradientTensor has data type INT32");
    d.InputGradientTensor = &dy.desc;
    d.ReductionFunction = DML_REDUCE_FUNCTION_SUM;
    Refused(DML_OPERATOR_ROI_ALIGN_GRAD, &d, "ReductionFunction is DML_REDUCE_FUNCTION_SUM");
    d.ReductionFunction = DML_REDUCE_FUNCTION_MAX;
    d.MinimumSamplesPerOutput = 0;
    Refused(DML_OPERATOR_ROI_ALIGN_GRAD, &d, "MinimumSamplesPerOutput is 0; it must be at least 1");
}

}  // namespace
}  // namespace freedml_test
