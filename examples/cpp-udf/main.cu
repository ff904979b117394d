// A CUDA C++ program whose kernel calls `axpy`, a device function written in
// Python (udf.py) and compiled to LTO-IR by cudalite-compile; nvcc links both
// with device link-time optimization (-dlto), so axpy is inlined into the kernel.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

extern "C" __device__ float axpy(float a, float x, float y);

__global__ void saxpy(float* out, const float* x, const float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = axpy(a, x[i], y[i]);
}

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); return 1; } } while (0)

int main() {
    const int n = 1 << 20;
    const float a = 2.5f;
    std::vector<float> x(n), y(n), out(n);
    for (int i = 0; i < n; ++i) { x[i] = 0.5f * i; y[i] = 1.0f - i; }
    float *dx, *dy, *dout;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    saxpy<<<(n + 255) / 256, 256>>>(dout, dx, dy, a, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        float expect = a * x[i] + y[i];
        if (std::fabs(out[i] - expect) > 1e-3f * std::fabs(expect) + 1e-3f) {
            std::printf("mismatch at %d: %f != %f\n", i, out[i], expect);
            return 1;
        }
    }
    std::printf("cpp-udf OK: %d results match\n", n);
    return 0;
}
