// cuBLAS GEMM in perftest's gemm layout: A row-major M x K, B stored N x K, C row-major (TN).
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
static void run(cublasHandle_t h, int n, cudaDataType in, cudaDataType out, cublasComputeType_t compute, const char* what) {
    size_t es = (in == CUDA_R_8I) ? 1 : 2, os = 4;
    void *a, *b, *c;
    cudaMalloc(&a, (size_t)n * n * es); cudaMalloc(&b, (size_t)n * n * es); cudaMalloc(&c, (size_t)n * n * os);
    cudaMemset(a, 0x11, (size_t)n * n * es); cudaMemset(b, 0x22, (size_t)n * n * es);
    float af = 1, bf = 0; int ai = 1, bi = 0;
    const void* alpha = (out == CUDA_R_32I) ? (const void*)&ai : (const void*)&af;
    const void* beta = (out == CUDA_R_32I) ? (const void*)&bi : (const void*)&bf;
    auto go = [&] { return cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, alpha, b, in, n, a, in, n, beta, c, out, n, compute, CUBLAS_GEMM_DEFAULT); };
    for (int i = 0; i < 5; ++i) go();
    cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
    int reps = n >= 8192 ? 30 : 200;
    cudaEventRecord(s);
    for (int i = 0; i < reps; ++i) go();
    cudaEventRecord(e); cudaEventSynchronize(e);
    float ms; cudaEventElapsedTime(&ms, s, e);
    int status = go();
    cudaDeviceSynchronize();
    double t = 2.0 * n * (double)n * n * reps / (ms * 1e-3) / 1e12;
    printf("cuBLAS %s %d^3 TN: %.1f T/s (%.3f ms per multiply, status %d)\n", what, n, t, ms / reps, status);
    cudaFree(a); cudaFree(b); cudaFree(c);
}
int main() {
    cublasHandle_t h; cublasCreate(&h);
    for (int n : {4096, 8192}) {
        run(h, n, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, "f16*f16+f32");
        run(h, n, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, "bf16*bf16+f32");
        run(h, n, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, "s8*s8+s32");
    }
}
