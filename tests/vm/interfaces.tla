// Interfaces: CALLI on classes implementing an interface directly, through
// a super-interface (Pet extends Named), and inherited by a subclass that
// overrides one method; a Pet register used where a Named is expected.
// expect: cat
// expect: granite
// expect: kitten
// expect: meow
// expect: cat
// expect: kitten
// expect: meow
module "interfaces"
source "interfaces.tl"
main main
native println_string (string) : void = builtin "println_string"

interface Named
  methods Named.name
end

interface Pet extends Named
  methods Pet.sound
end

method Named.name (Named) : string owner Named abstract
method Pet.sound (Pet) : string owner Pet abstract

class Cat implements Pet
  vtable Cat.name, Cat.sound
end

class Kitten extends Cat
  vtable Kitten.name, Cat.sound
end

class Rock implements Named
  field label string
  vtable Rock.name
end

method Cat.name (Cat) : string owner Cat
  regs string
  LDK r1, "cat"
  RET r1
end

method Cat.sound (Cat) : string owner Cat
  regs string
  LDK r1, "meow"
  RET r1
end

method Kitten.name (Kitten) : string owner Kitten
  regs string
  LDK r1, "kitten"
  RET r1
end

method Rock.name (Rock) : string owner Rock
  regs string
  GETF r1, r0, Rock.label
  RET r1
end

method main () : void static
  regs Named[], int, Named, string, Rock, Pet, int, Cat, Kitten
  LDI r1, 3
  NEWA r0, r1, Named[]
  NEW r7, Cat
  LDI r1, 0
  APUTR r0, r1, r7
  NEW r4, Rock
  LDK r3, "granite"
  PUTF r4, Rock.label, r3
  LDI r1, 1
  APUTR r0, r1, r4
  NEW r8, Kitten
  LDI r1, 2
  APUTR r0, r1, r8
  LDI r1, 0
  LDI r6, 3
each:
  AGETR r2, r0, r1
  CALLI r3, r2, Named.name
  CALLN _, r3, println_string
  LOOP r1, r6, each
  NEW r7, Cat
  MOV r5, r7
  CALLI r3, r5, Pet.sound
  CALLN _, r3, println_string       // meow
  CALLI r3, r5, Named.name          // a Pet is a Named
  CALLN _, r3, println_string       // cat
  NEW r8, Kitten
  MOV r5, r8
  CALLI r3, r5, Named.name
  CALLN _, r3, println_string       // kitten
  CALLI r3, r5, Pet.sound
  CALLN _, r3, println_string       // meow (inherited)
  RETV
end
