//! The staging buffer kept from one upload to the next: handed out again while it is large enough,
//! replaced by a larger one, let go when a case needs its room, and freed with the device (the
//! validation layer names any object left at vkDestroyDevice).

use perftest::vk::transfer::{keep_staging, kept_staging_bytes, let_go_of_staging, staging};

use crate::harness::Gpu;

const MIB: u64 = 1 << 20;

#[test]
fn a_staging_buffer_is_kept_while_large_enough_and_let_go_when_asked() {
    let gpu = Gpu::with_cases(Vec::new());
    let ctx = &gpu.ctx;
    assert!(kept_staging_bytes(ctx) >= 2 * MIB, "lavapipe's heap keeps a 2 MiB staging buffer");
    assert!(!let_go_of_staging(ctx), "nothing is kept before the first upload");
    keep_staging(ctx, staging(ctx, "first", MIB).unwrap());
    // A smaller upload is handed the kept buffer, all of it.
    let second = staging(ctx, "second", 4096).unwrap();
    assert_eq!(second.size, MIB);
    keep_staging(ctx, second);
    // A larger one gets a buffer of its own size, kept in the first's place.
    let third = staging(ctx, "third", 2 * MIB).unwrap();
    assert_eq!(third.size, 2 * MIB);
    keep_staging(ctx, third);
    assert_eq!(staging(ctx, "fourth", MIB).unwrap().size, 2 * MIB);
    // Taken and dropped: nothing kept until a buffer is handed back.
    assert!(!let_go_of_staging(ctx));
    keep_staging(ctx, staging(ctx, "fifth", MIB).unwrap());
    assert!(let_go_of_staging(ctx), "a case short of room gets it back");
    assert!(!let_go_of_staging(ctx));
    // One kept when the device closes is freed with it.
    keep_staging(ctx, staging(ctx, "last", 4096).unwrap());
    gpu.close();
}
