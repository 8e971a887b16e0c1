//! How long after a ~20 ms submission's end the CPU learns of it: `vkWaitForFences` alone, a busy
//! poll of `vkGetFenceStatus`, and a wait that sleeps until 2 ms before the expected end and then
//! polls. The work is fills of a 1 GiB buffer between two timestamps; the gap is the submission's
//! wall time (submit to knowing it ended) minus its GPU time. Built as a cargo example of this
//! repository (copy it to examples/waitbench.rs), run on the GPU machine as `waitbench [RUNS]`.

use ash::vk;
use std::time::{Duration, Instant};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(30);
    // SAFETY: plain Vulkan calls on objects made here, each destroyed once, children first; every
    // submission is waited for before the next is recorded.
    unsafe {
        let entry = ash::Entry::load().expect("a Vulkan loader");
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance =
            entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None).expect("instance");
        let physical = instance.enumerate_physical_devices().expect("devices")[0];
        let period = f64::from(instance.get_physical_device_properties(physical).limits.timestamp_period);
        let props = instance.get_physical_device_memory_properties(physical);
        let types = &props.memory_types[..props.memory_type_count as usize];
        let index = types
            .iter()
            .position(|t| t.property_flags.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL))
            .expect("device-local memory") as u32;
        let priority = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(0).queue_priorities(&priority)];
        let device = instance
            .create_device(physical, &vk::DeviceCreateInfo::default().queue_create_infos(&queues), None)
            .expect("device");
        let queue = device.get_device_queue(0, 0);
        let size: u64 = 1 << 30;
        let buffer = device
            .create_buffer(&vk::BufferCreateInfo::default().size(size).usage(vk::BufferUsageFlags::TRANSFER_DST), None)
            .expect("buffer");
        let need = device.get_buffer_memory_requirements(buffer);
        let memory = device
            .allocate_memory(&vk::MemoryAllocateInfo::default().allocation_size(need.size).memory_type_index(index), None)
            .expect("memory");
        device.bind_buffer_memory(buffer, memory, 0).expect("bind");
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(0)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        let pool = device.create_command_pool(&pool_info, None).expect("pool");
        let info = vk::CommandBufferAllocateInfo::default().command_pool(pool).command_buffer_count(1);
        let cmd = device.allocate_command_buffers(&info).expect("command buffer")[0];
        let queries = device
            .create_query_pool(&vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(2), None)
            .expect("queries");
        let fence = device.create_fence(&vk::FenceCreateInfo::default(), None).expect("fence");
        // One submission of `fills` fills; how it is waited for; its GPU and wall milliseconds.
        let once = |fills: u32, mode: u8, expect_ms: f64| -> (f64, f64) {
            device.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty()).expect("reset");
            device.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default()).expect("begin");
            device.cmd_reset_query_pool(cmd, queries, 0, 2);
            device.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, queries, 0);
            for n in 0..fills {
                device.cmd_fill_buffer(cmd, buffer, 0, vk::WHOLE_SIZE, n);
            }
            device.cmd_write_timestamp(cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, queries, 1);
            device.end_command_buffer(cmd).expect("end");
            device.reset_fences(&[fence]).expect("reset fence");
            let cmds = [cmd];
            let start = Instant::now();
            device.queue_submit(queue, &[vk::SubmitInfo::default().command_buffers(&cmds)], fence).expect("submit");
            match mode {
                0 => device.wait_for_fences(&[fence], true, u64::MAX).expect("wait"),
                1 => while !device.get_fence_status(fence).expect("status") {},
                _ => {
                    let sleep = Duration::from_secs_f64((expect_ms - 2.0).max(0.0) / 1e3);
                    match device.wait_for_fences(&[fence], true, sleep.as_nanos() as u64) {
                        Ok(()) | Err(vk::Result::TIMEOUT) => {}
                        Err(e) => panic!("{e}"),
                    }
                    while !device.get_fence_status(fence).expect("status") {}
                }
            }
            let wall = start.elapsed().as_secs_f64() * 1e3;
            let mut stamps = [0u64; 2];
            device
                .get_query_pool_results(queries, 0, &mut stamps, vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT)
                .expect("stamps");
            ((stamps[1] - stamps[0]) as f64 * period / 1e6, wall)
        };
        // Fills for about 20 ms.
        let (one, _) = once(4, 0, 0.0);
        let fills = ((20.0 / (one / 4.0)) as u32).max(1);
        let (gpu, _) = once(fills, 0, 0.0);
        println!("{fills} fills of 1 GiB: {gpu:.2} ms on the GPU");
        for (mode, name) in [(0u8, "vkWaitForFences"), (1, "busy poll"), (2, "sleep to 2 ms before, then poll"), (0, "vkWaitForFences again")] {
            let mut gaps = Vec::new();
            for _ in 0..runs {
                let (g, w) = once(fills, mode, gpu);
                gaps.push(w - g);
            }
            let max = gaps.iter().cloned().fold(0.0, f64::max);
            println!("{name}: wall minus GPU time, median {:.3} ms, max {max:.3} ms over {runs}", median(gaps));
        }
        // Short submissions: one fill.
        for (mode, name) in [(0u8, "vkWaitForFences, one fill"), (1, "busy poll, one fill")] {
            let gaps: Vec<f64> = (0..runs).map(|_| { let (g, w) = once(1, mode, 0.0); w - g }).collect();
            println!("{name}: wall minus GPU time, median {:.3} ms", median(gaps));
        }
        device.destroy_fence(fence, None);
        device.destroy_query_pool(queries, None);
        device.destroy_command_pool(pool, None);
        device.destroy_buffer(buffer, None);
        device.free_memory(memory, None);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}
