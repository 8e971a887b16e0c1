//! What makes a case description usable, checked without a device: every expanded case passes
//! (a test holds it), and the runner refuses one that does not with a sentence naming the case.

use super::case::{CaseSpec, Scale, HEADER_BYTES};
use super::format::texel_bytes;
use super::resource::{Access, Placement, Reset, ResourceKind};

impl CaseSpec {
    /// The first thing wrong with the description, as the end of a sentence that starts with the
    /// case's name ("resource 2 is empty"); `Ok` for a usable case.
    pub fn validate(&self) -> Result<(), String> {
        if self.transfer {
            return match self.resources.as_slice() {
                [_, to] if to.contents.is_some() => {
                    Err("its target names its contents: a copy writes it, so no case can share them".into())
                }
                [from, _] if from.contents.is_some() && from.fill.is_none() => {
                    Err("its source names its contents but has no fill".into())
                }
                [from, to] if from.kind.bytes() > 0 && from.kind.bytes() == to.kind.bytes() => {
                    match self.slots > 0 && from.kind.bytes() % self.slots == 0 {
                        true => Ok(()),
                        false => Err(format!("its buffers do not split into {} equal parts", self.slots)),
                    }
                }
                [_, _] => Err("its source and target must be the same, non-zero size".into()),
                _ => Err("a transfer case has exactly a source and a target".into()),
            };
        }
        if let Some(kind) = self.queue {
            return Err(format!(
                "only a transfer runs on a {} queue: a shader runs on the run's own",
                kind.label()
            ));
        }
        if let Some(copies) = self.copies {
            let bytes = |i: usize| match self.resources.get(i).map(|r| r.kind) {
                Some(ResourceKind::StorageBuffer { bytes }) => Some(bytes),
                _ => None,
            };
            match (bytes(copies.source), bytes(copies.through)) {
                _ if !matches!(self.scale, Scale::Problem { .. }) => {
                    return Err("its copies come before each dispatch of a problem grid: it has none".into())
                }
                _ if copies.count == 0 || copies.count % 2 == 1 => {
                    return Err(format!("{} copies do not end in the buffer the shader checks", copies.count))
                }
                (Some(a), Some(b)) if a > 0 && a == b && copies.source != copies.through => {}
                _ => return Err("its copies go between two storage buffers of one size".into()),
            }
        }
        if let Some(index) = self.checks {
            let kind = self.resources.get(index).map(|r| r.kind);
            let storage = matches!(
                kind,
                Some(
                    ResourceKind::StorageBuffer { .. }
                        | ResourceKind::StorageTexelBuffer { .. }
                        | ResourceKind::StorageImage { .. }
                )
            );
            if !storage {
                return Err(format!(
                    "it checks resource {}, not a storage buffer, storage texel buffer or storage image",
                    index + 1
                ));
            }
        }
        if self.push.time.len() != self.push.verify.len() {
            return Err("its push blocks of timing and verify runs differ in length".into());
        }
        let push_bytes = self.push.size();
        for (i, resource) in self.resources.iter().enumerate() {
            let n = i + 1;
            if resource.kind.bytes() == 0 {
                return Err(format!("resource {n} is empty"));
            }
            if resource.reset.is_some() && resource.access == Access::ReadOnly {
                return Err(format!("resource {n} is read-only but has a reset"));
            }
            if resource.fill_at.is_some() {
                if !matches!(resource.kind, ResourceKind::BufferAddress { .. }) {
                    return Err(format!(
                        "resource {n}: only a buffer reached by its address is filled at it"
                    ));
                }
                if resource.fill.is_some() || resource.reset.is_some() {
                    return Err(format!(
                        "resource {n}: a buffer filled at its address has no other fill and no reset"
                    ));
                }
            }
            if resource.contents.is_some() {
                let kept = matches!(
                    resource.kind,
                    ResourceKind::StorageBuffer { .. }
                        | ResourceKind::UniformBuffer { .. }
                        | ResourceKind::UniformTexelBuffer { .. }
                        | ResourceKind::SampledImage { .. }
                );
                if !kept || resource.access != Access::ReadOnly || self.checks == Some(i) {
                    return Err(format!(
                        "resource {n} names its contents, which only a read-only buffer or sampled image \
                         that the case does not check may do"
                    ));
                }
                if resource.fill.is_none() {
                    return Err(format!(
                        "resource {n} names its contents but has no fill: a name is for the same filled \
                         bytes in every case"
                    ));
                }
            }
            match resource.kind {
                ResourceKind::TransferBuffer { .. } => {
                    return Err(format!("resource {n}: a transfer buffer is only for CaseSpec::copy cases"))
                }
                ResourceKind::BufferAddress { push_offset, .. } => {
                    if push_offset % 8 != 0 {
                        return Err(format!(
                            "resource {n}: push offset {push_offset} is not a multiple of 8"
                        ));
                    }
                    if HEADER_BYTES + push_offset as usize + 8 > push_bytes {
                        return Err(format!(
                            "resource {n}: push offset {push_offset} is outside the push block"
                        ));
                    }
                }
                ResourceKind::SampledImage { format, .. } | ResourceKind::StorageImage { format, .. } => {
                    if resource.placement != Placement::DeviceLocal {
                        return Err(format!("resource {n}: images are device-local only"));
                    }
                    if texel_bytes(format).is_none() {
                        return Err(format!(
                            "resource {n}: perftest does not know the texel size of {format:?}"
                        ));
                    }
                    if matches!(resource.reset, Some(Reset::Fill(_))) {
                        return Err(format!("resource {n}: images reset to their initial contents only"));
                    }
                }
                _ => {}
            }
        }
        if let Scale::PushWord(index) = self.scale {
            if HEADER_BYTES + 4 * index + 4 > push_bytes {
                return Err(format!("its scale word {index} is outside its push block"));
            }
        }
        if let Some(at) = self.unit_records {
            let kind = self.resources.get(at).map(|r| (&r.kind, r.access));
            if !matches!(kind, Some((ResourceKind::StorageBuffer { .. }, Access::ReadWrite))) {
                return Err(format!(
                    "its unit records, resource {}, are not a read-write storage buffer",
                    at + 1
                ));
            }
            if !matches!(self.scale, Scale::Problem { .. }) {
                return Err(
                    "it records each workgroup's unit, which needs a fixed grid (Scale::Problem)".into()
                );
            }
        }
        if let Some(log) = self.fault_log {
            let kind = self.resources.get(log.resource).map(|r| (&r.kind, r.access, r.reset.is_some()));
            if !matches!(kind, Some((ResourceKind::StorageBuffer { .. }, Access::ReadWrite, false))) {
                return Err(format!(
                    "its fault log, resource {}, is not a read-write storage buffer that is never reset",
                    log.resource + 1
                ));
            }
            if !matches!(self.scale, Scale::Groups | Scale::Problem { .. }) {
                return Err("it logs faults, whose checked results are counted by workgroups or grids".into());
            }
        }
        if self.chain_clock && !matches!(self.scale, Scale::PushWord(_)) {
            return Err(
                "it reads the shader clock around a chain, which needs a push word's count of trips \
                        (Scale::PushWord)"
                    .into(),
            );
        }
        Ok(())
    }
}
