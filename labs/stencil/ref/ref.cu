// ref.cu - the stencil lab's reference: the same 5 x 5 convolution with zero
// padding, each output computed in double precision from the float inputs
// and weights, in the order dy = -2..2, dx = -2..2.  cudalab checks every
// kernel of the lab against it (and checks it once against the Lua reference
// in lab.lua at the smallest size).  Written for clarity, not speed: it runs
// once a check.

extern "C" __global__ void conv5x5_ref(const float *in, const float *w, double *out,
                                       int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols)
        return;

    double acc = 0.0;
    for (int dy = -2; dy <= 2; ++dy) {
        const int rr = r + dy;
        if (rr < 0 || rr >= rows)
            continue;
        for (int dx = -2; dx <= 2; ++dx) {
            const int cc = c + dx;
            if (cc < 0 || cc >= cols)
                continue;
            acc += (double)w[(dy + 2) * 5 + (dx + 2)] * (double)in[(size_t)rr * cols + cc];
        }
    }
    out[(size_t)r * cols + c] = acc;
}
