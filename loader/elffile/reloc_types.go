package elffile

import "strconv"

// relocOp is what a relocation computes, independent of the machine. S is
// the symbol's value (its offset in its section, sections being placed at
// address 0), A the addend, P the place (the offset being relocated) and
// W the word already at P.
type relocOp uint8

const (
	opUnknown relocOp = iota
	opNone            // no effect
	opAbs             // W = S + A
	opPCRel           // W = S + A - P
	opAdd             // W = W + S + A
	opSub             // W = W - (S + A)
	opSet6            // low 6 bits of W = S + A
	opSub6            // low 6 bits of W = W - (S + A)
	opSetULEB         // ULEB128 at P, keeping its length, = S + A
	opSubULEB         // ULEB128 at P, keeping its length, = W - (S + A)
	opDTPRel          // W = S + A - 0x8000 (TLS offset, biased on PPC and MIPS)
)

// relocHow is a relocation's operation and the width in bytes of its word
// (0 for the variable-length ULEB128 operations).
type relocHow struct {
	op    relocOp
	width uint8
}

// classifyReloc maps a machine's relocation type to what it computes. Only
// the types that appear in debug sections are known; the rest give
// opUnknown, which the caller reports.
func classifyReloc(machine uint16, typ uint32) relocHow {
	switch machine {
	case EM_X86_64:
		switch typ {
		case 0: // R_X86_64_NONE
			return relocHow{opNone, 0}
		case 1, 17: // R_X86_64_64, R_X86_64_DTPOFF64
			return relocHow{opAbs, 8}
		case 2: // R_X86_64_PC32
			return relocHow{opPCRel, 4}
		case 10, 11, 21: // R_X86_64_32, R_X86_64_32S, R_X86_64_DTPOFF32
			return relocHow{opAbs, 4}
		case 24: // R_X86_64_PC64
			return relocHow{opPCRel, 8}
		}
	case EM_386:
		switch typ {
		case 0: // R_386_NONE
			return relocHow{opNone, 0}
		case 1, 32: // R_386_32, R_386_TLS_LDO_32
			return relocHow{opAbs, 4}
		case 2: // R_386_PC32
			return relocHow{opPCRel, 4}
		}
	case EM_ARM:
		switch typ {
		case 0: // R_ARM_NONE
			return relocHow{opNone, 0}
		case 2, 106: // R_ARM_ABS32, R_ARM_TLS_LDO32
			return relocHow{opAbs, 4}
		case 3: // R_ARM_REL32
			return relocHow{opPCRel, 4}
		}
	case EM_AARCH64:
		switch typ {
		case 0, 256: // R_AARCH64_NONE (both spellings)
			return relocHow{opNone, 0}
		case 257: // R_AARCH64_ABS64
			return relocHow{opAbs, 8}
		case 258: // R_AARCH64_ABS32
			return relocHow{opAbs, 4}
		case 259: // R_AARCH64_ABS16
			return relocHow{opAbs, 2}
		case 260: // R_AARCH64_PREL64
			return relocHow{opPCRel, 8}
		case 261: // R_AARCH64_PREL32
			return relocHow{opPCRel, 4}
		case 262: // R_AARCH64_PREL16
			return relocHow{opPCRel, 2}
		}
	case EM_RISCV:
		return classifyRISCV(typ)
	case EM_PPC64, EM_PPC:
		switch typ {
		case 0: // R_PPC64_NONE
			return relocHow{opNone, 0}
		case 1: // R_PPC64_ADDR32
			return relocHow{opAbs, 4}
		case 26: // R_PPC64_REL32
			return relocHow{opPCRel, 4}
		case 78: // R_PPC64_DTPREL64 (R_PPC_DTPREL32 on ppc)
			return relocHow{opDTPRel, [...]uint8{EM_PPC: 4, EM_PPC64: 8}[machine]}
		}
		if machine == EM_PPC64 {
			switch typ {
			case 38: // R_PPC64_ADDR64
				return relocHow{opAbs, 8}
			case 44: // R_PPC64_REL64
				return relocHow{opPCRel, 8}
			}
		}
	case EM_S390:
		switch typ {
		case 0: // R_390_NONE
			return relocHow{opNone, 0}
		case 4: // R_390_32
			return relocHow{opAbs, 4}
		case 5: // R_390_PC32
			return relocHow{opPCRel, 4}
		case 22: // R_390_64
			return relocHow{opAbs, 8}
		case 23: // R_390_PC64
			return relocHow{opPCRel, 8}
		}
	case EM_MIPS: // 32-bit only; 64-bit MIPS is rejected before this
		switch typ {
		case 0: // R_MIPS_NONE
			return relocHow{opNone, 0}
		case 2: // R_MIPS_32
			return relocHow{opAbs, 4}
		case 39: // R_MIPS_TLS_DTPREL32
			return relocHow{opDTPRel, 4}
		}
	}
	return relocHow{opUnknown, 0}
}

// classifyRISCV covers RISC-V, where linker relaxation makes code sizes
// unknown until link time, so debug sections hold differences of labels as
// ADD/SUB (and SET/SUB for ULEB128) pairs applied to the same word.
func classifyRISCV(typ uint32) relocHow {
	switch typ {
	case 0, 51: // R_RISCV_NONE, R_RISCV_RELAX (a hint)
		return relocHow{opNone, 0}
	case 1: // R_RISCV_32
		return relocHow{opAbs, 4}
	case 2: // R_RISCV_64
		return relocHow{opAbs, 8}
	case 33, 34, 35, 36: // R_RISCV_ADD8/16/32/64
		return relocHow{opAdd, [...]uint8{1, 2, 4, 8}[typ-33]}
	case 37, 38, 39, 40: // R_RISCV_SUB8/16/32/64
		return relocHow{opSub, [...]uint8{1, 2, 4, 8}[typ-37]}
	case 52: // R_RISCV_SUB6
		return relocHow{opSub6, 1}
	case 53: // R_RISCV_SET6
		return relocHow{opSet6, 1}
	case 54: // R_RISCV_SET8
		return relocHow{opAbs, 1}
	case 55: // R_RISCV_SET16
		return relocHow{opAbs, 2}
	case 56: // R_RISCV_SET32
		return relocHow{opAbs, 4}
	case 57: // R_RISCV_32_PCREL
		return relocHow{opPCRel, 4}
	case 60: // R_RISCV_SET_ULEB128
		return relocHow{opSetULEB, 0}
	case 61: // R_RISCV_SUB_ULEB128
		return relocHow{opSubULEB, 0}
	}
	return relocHow{opUnknown, 0}
}

// machineName names e_machine values in error messages.
func machineName(m uint16) string {
	switch m {
	case EM_386:
		return "i386"
	case EM_MIPS:
		return "mips"
	case EM_PPC:
		return "ppc"
	case EM_PPC64:
		return "ppc64"
	case EM_S390:
		return "s390"
	case EM_ARM:
		return "arm"
	case EM_X86_64:
		return "x86-64"
	case EM_AARCH64:
		return "aarch64"
	case EM_RISCV:
		return "riscv"
	}
	return "machine " + strconv.Itoa(int(m))
}
