//! What the GPU's vendor tells outside Vulkan, loaded at run time so the binary runs without it:
//! on NVIDIA, NVML's list of the processes using a GPU, found by the Vulkan `deviceUUID` (which
//! is NVML's UUID). Plain data out; a missing library or GPU is a sentence, never a failure.

pub mod nvml;
