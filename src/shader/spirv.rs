//! Reading compiled SPIR-V: the instruction stream, and the size of the push-constant block.
//!
//! Enough of the SPIR-V binary format (the specification's section 2.3) for tests that check
//! what the compiler kept, and for the runner's check that a case's push bytes fill its block.

/// The first word of every SPIR-V module.
pub const MAGIC: u32 = 0x0723_0203;
/// `OpExtInst`: operands are result type, result, set, instruction number, arguments.
pub const OP_EXT_INST: u32 = 12;
/// `Fma` in the GLSL.std.450 extended instruction set.
pub const GLSL_FMA: u32 = 50;
/// `OpIMul`.
pub const OP_IMUL: u32 = 132;
/// `OpFMul`.
pub const OP_FMUL: u32 = 133;
/// `OpSelectionMerge`: operands are the merge block and the selection control.
pub const OP_SELECTION_MERGE: u32 = 247;

const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_TYPE_VECTOR: u32 = 23;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_POINTER: u32 = 32;
const OP_VARIABLE: u32 = 59;
const OP_MEMBER_DECORATE: u32 = 72;
const DECORATION_OFFSET: u32 = 35;
const STORAGE_PUSH_CONSTANT: u32 = 9;
const STORAGE_PHYSICAL_BUFFER: u32 = 5349;

/// One instruction: its opcode and the words after the first.
#[derive(Clone, Copy, Debug)]
pub struct Instruction<'a> {
    /// The opcode.
    pub opcode: u32,
    /// The operand words.
    pub operands: &'a [u32],
}

/// The instructions of `module`, after its five-word header; stops at a malformed length.
pub fn instructions(module: &[u32]) -> impl Iterator<Item = Instruction<'_>> {
    let mut at = 5.min(module.len());
    std::iter::from_fn(move || {
        let first = *module.get(at)?;
        let words = (first >> 16) as usize;
        if words == 0 || at + words > module.len() {
            return None;
        }
        let instruction = Instruction { opcode: first & 0xFFFF, operands: &module[at + 1..at + words] };
        at += words;
        Some(instruction)
    })
}

/// The size in bytes of the module's push-constant block (the last member's offset plus its
/// size), or `None` if it has none or its last member is not a scalar, vector or pointer.
pub fn push_constant_bytes(module: &[u32]) -> Option<u32> {
    let find = |opcode: u32, id: u32| {
        instructions(module).find(|i| i.opcode == opcode && i.operands.first() == Some(&id))
    };
    let type_of =
        |id: u32| instructions(module).find(|i| is_type(i.opcode) && i.operands.first() == Some(&id));
    let variable = instructions(module)
        .find(|i| i.opcode == OP_VARIABLE && i.operands.get(2) == Some(&STORAGE_PUSH_CONSTANT))?;
    let pointer = find(OP_TYPE_POINTER, variable.operands[0])?;
    let block = find(OP_TYPE_STRUCT, *pointer.operands.get(2)?)?;
    let members = &block.operands[1..];
    let last = members.len().checked_sub(1)? as u32;
    let offset = instructions(module)
        .find(|i| {
            i.opcode == OP_MEMBER_DECORATE
                && i.operands.len() >= 4
                && i.operands[0] == block.operands[0]
                && i.operands[1] == last
                && i.operands[2] == DECORATION_OFFSET
        })?
        .operands[3];
    Some(offset + size_of(type_of(*members.last()?)?, &type_of)?)
}

fn is_type(opcode: u32) -> bool {
    matches!(opcode, OP_TYPE_INT | OP_TYPE_FLOAT | OP_TYPE_VECTOR | OP_TYPE_STRUCT | OP_TYPE_POINTER)
}

fn size_of<'a>(ty: Instruction<'a>, type_of: &dyn Fn(u32) -> Option<Instruction<'a>>) -> Option<u32> {
    match ty.opcode {
        OP_TYPE_INT | OP_TYPE_FLOAT => Some(ty.operands.get(1)? / 8),
        OP_TYPE_VECTOR => Some(size_of(type_of(*ty.operands.get(1)?)?, type_of)? * ty.operands.get(2)?),
        OP_TYPE_POINTER if ty.operands.get(1) == Some(&STORAGE_PHYSICAL_BUFFER) => Some(8),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_truncated_module_ends_the_walk_instead_of_panicking() {
        // Header, then an instruction claiming 9 words with 2 present.
        let module = [MAGIC, 0x0001_0500, 0, 10, 0, (9 << 16) | OP_IMUL, 1];
        assert_eq!(instructions(&module).count(), 0);
        assert_eq!(instructions(&module[..3]).count(), 0);
        assert_eq!(push_constant_bytes(&module), None);
    }
}
