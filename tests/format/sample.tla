// tests/format/sample.tla — one valid module using every declaration kind
// (module/source/main/init, consts, globals, natives builtin and extern,
// interfaces with super-interfaces, abstract and concrete classes with
// fields and vtables, abstract methods, a lambda with captures) and every
// operand kind.  The format round-trip tests assemble, write, read and
// disassemble it; it also runs: it prints 6, 12, 2.0, area, 6, 5.
module "sample"
source "sample.tl"
main main
init globals$init
consts "area"

global count int
global scale float
global names string[]

native println_int (int) : void = builtin "println_int"
native println_float (float) : void = builtin "println_float"
native println_string (string) : void = builtin "println_string"
native cbrt (float) : float = "libm.so.6" "cbrt"

interface Named
  methods Named.name
end

interface Shape extends Named
  methods Shape.area, Shape.name
end

class Base implements Shape abstract
  field id int
  vtable Base.area, Base.name
end

class Rect extends Base
  field w int
  field h int
  vtable Rect.area, Base.name, Rect.scaled
end

method Named.name (Named) : string owner Named abstract
method Shape.area (Shape) : int owner Shape abstract
method Shape.name (Shape) : string owner Shape abstract
method Base.area (Base) : int owner Base abstract

method Base.name (Base) : string owner Base
  regs string
  line 40
  LDK r1, "area"
  RET r1
end

method Rect.area (Rect) : int owner Rect
  regs int, int, int
  line 50
  GETF r1, r0, Rect.w
  GETF r2, r0, Rect.h
  MUL r3, r1, r2
  RET r3
end

method Rect.scaled (Rect, float) : float owner Rect
  regs int, float
  CALLV r2, r0, Rect.area
  I2F r3, r2
  FMUL r3, r3, r1
  RET r3
end

method globals$init () : void static
  regs int, float
  LDI r0, 0x0
  STG count, r0
  LDF r1, 1.5
  STG scale, r1
  RETV
end

method main$1 (fn(int):int, int) : int lambda
  caps int
  regs int
  LDCAP r2, 0
  ADD r2, r2, r1
  RET r2
end

method main () : void static
  regs Rect, int, Shape, int, float, bool, fn(int):int, int, int, Object, Rect[], string, float
  line 60
  NEW r0, Rect
  LDI r1, 2
  PUTF r0, Rect.w, r1
  LDI r1, 3
  PUTF r0, Rect.h, r1
  MOV r2, r0
  CALLI r3, r2, Shape.area
  CALLN _, r3, println_int
  LDI r7, 10
  LDI r8, -4
  ADDK r8, r8, 6
  CLOS r6, r7, main$1
  LDI r7, 2
  CALLF r1, r6
  CALLN _, r1, println_int
  LDF r4, 8.0
  CALLN r4, r4, cbrt
  CALLN _, r4, println_float
  CALLV r11, r0, Base.name
  CALLN _, r11, println_string
  MOV r9, r0
  ISA r5, r9, Shape
  JF r5, done
  CAST r0, r9, Rect
  LDI r1, 0
  LDI r3, 0
loop:
  line 61
  ADDK r1, r1, 3
  JLTS r3, -1, done
  LOOP r3, r7, loop
  LDI r3, 5
  JGES r1, 9, done
  CALLN _, r1, println_int
  NEWA r10, r3, Rect[]
  ALEN r3, r10
  CALLN _, r3, println_int
  LDG r3, count
done:
  RETV
end
