// A class implementing two interfaces, a subclass inheriting both, a class
// whose vtable order differs from the interface's method order, interface
// methods with arguments, and one CALLI site alternating receiver classes
// (the interpreter's one-class cache must be refilled, not trusted).
// expect: bag 3
// expect: 30
// expect: pile 5
// expect: word
// expect: 11
// expect: 11000
module "iface_multi"
source "iface_multi.tl"
main main
native println_string (string) : void = builtin "println_string"
native println_int (int) : void = builtin "println_int"
native str_int (int) : string = builtin "str_int"

interface Sized
  methods Sized.size, Sized.scaled
end

interface Named
  methods Named.name
end

method Sized.size (Sized) : int owner Sized abstract
method Sized.scaled (Sized, int) : int owner Sized abstract
method Named.name (Named) : string owner Named abstract

// vtable order: name first, then scaled before size.
class Bag implements Sized, Named
  field n int
  vtable Bag.name, Bag.scaled, Bag.size
end

class Pile extends Bag
  vtable Pile.name, Bag.scaled, Bag.size
end

class Word implements Named
  vtable Word.name
end

method Bag.name (Bag) : string owner Bag
  regs string
  LDK r1, "bag"
  RET r1
end

method Bag.size (Bag) : int owner Bag
  regs int
  GETF r1, r0, Bag.n
  RET r1
end

method Bag.scaled (Bag, int) : int owner Bag
  regs int
  GETF r2, r0, Bag.n
  MUL r2, r2, r1
  RET r2
end

method Pile.name (Pile) : string owner Pile
  regs string
  LDK r1, "pile"
  RET r1
end

method Word.name (Word) : string owner Word
  regs string
  LDK r1, "word"
  RET r1
end

// name + " " + size, through the two interfaces
method label (Named, Sized) : string static
  regs string, string, int
  CALLI r2, r0, Named.name
  LDK r3, " "
  SCAT r2, r2, r3
  CALLI r4, r1, Sized.size
  CALLN r3, r4, str_int
  SCAT r2, r2, r3
  RET r2
end

method main () : void static
  regs Bag, Pile, Word, Named, Sized, int, string, int, int, Named[], int, int
  NEW r0, Bag
  LDI r5, 3
  PUTF r0, Bag.n, r5
  MOV r3, r0
  MOV r4, r0
  CALL r6, r3, label
  CALLN _, r6, println_string       // bag 3
  LDI r5, 10
  CALLI r7, r4, Sized.scaled
  CALLN _, r7, println_int          // 3 * 10
  NEW r1, Pile
  LDI r5, 5
  PUTF r1, Bag.n, r5
  MOV r3, r1
  MOV r4, r1
  CALL r6, r3, label
  CALLN _, r6, println_string       // pile 5
  NEW r2, Word
  MOV r3, r2
  CALLI r6, r3, Named.name
  CALLN _, r6, println_string       // word
  // one site, three classes in turn: total length of the names, 1000 rounds
  LDI r5, 3
  NEWA r9, r5, Named[]
  LDI r5, 0
  APUTR r9, r5, r0
  LDI r5, 1
  APUTR r9, r5, r1
  LDI r5, 2
  APUTR r9, r5, r2
  LDI r8, 0                         // total
  LDI r10, 0                        // round
round:
  LDI r5, 0
  LDI r11, 3
each:
  AGETR r3, r9, r5
  CALLI r6, r3, Named.name
  SLEN r7, r6
  ADD r8, r8, r7
  LOOP r5, r11, each
  JNES r10, 0, skip
  CALLN _, r8, println_int          // first round: 3 + 4 + 4
skip:
  LDI r11, 1000
  LOOP r10, r11, round
  CALLN _, r8, println_int
  RETV
end
