//! What a device's vendor and the kernel tell outside Vulkan, loaded or read at run time so the
//! binary runs without them: on NVIDIA, NVML (the processes using a GPU, the board's energy
//! counter), found by the Vulkan `deviceUUID` (which is NVML's UUID); elsewhere the kernel's hwmon
//! and RAPL files; and the arithmetic of an energy counter. Plain data out; a missing library,
//! GPU or file is a sentence, never a failure.

pub mod counter;
pub mod energy;
pub mod nvml;
pub mod sysfs;
