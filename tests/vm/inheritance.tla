// Inheritance: fields of the superclass read and written through subclass
// references, inherited vtable slots, an override calling the overridden
// method with CALL (super.m(), no dispatch), a constructor chain through
// static owner methods, MOV of a subclass into a superclass register.
// expect: rex says woof
// expect: 4 3
// expect: rex
// expect: bit says woof!
// expect: thing says ...
// expect: 5
module "inheritance"
source "inheritance.tl"
main main
native println_string (string) : void = builtin "println_string"
native print_int (int) : void = builtin "print_int"
native print_string (string) : void = builtin "print_string"
native println_int (int) : void = builtin "println_int"

class Animal
  field name string
  field legs int
  vtable Animal.sound, Animal.describe
end

class Dog extends Animal
  field tricks int
  vtable Dog.sound, Animal.describe, Dog.learn
end

class Puppy extends Dog
  vtable Puppy.sound, Animal.describe, Dog.learn
end

method Animal.init (Animal, string, int) : void owner Animal static
  PUTF r0, Animal.name, r1
  PUTF r0, Animal.legs, r2
  RETV
end

method Dog.init (Dog, string, int, int) : void owner Dog static
  CALL _, r0, Animal.init
  PUTF r0, Dog.tricks, r3
  RETV
end

method Animal.sound (Animal) : string owner Animal
  regs string
  LDK r1, "..."
  RET r1
end

method Animal.describe (Animal) : string owner Animal
  regs string, string
  GETF r1, r0, Animal.name
  LDK r2, " says "
  SCAT r1, r1, r2
  CALLV r2, r0, Animal.sound
  SCAT r1, r1, r2
  RET r1
end

method Dog.sound (Dog) : string owner Dog
  regs string
  LDK r1, "woof"
  RET r1
end

method Dog.learn (Dog, int) : int owner Dog
  regs int
  GETF r2, r0, Dog.tricks
  ADD r2, r2, r1
  PUTF r0, Dog.tricks, r2
  RET r2
end

method Puppy.sound (Puppy) : string owner Puppy
  regs string, string
  CALL r1, r0, Dog.sound
  LDK r2, "!"
  SCAT r1, r1, r2
  RET r1
end

method main () : void static
  regs Dog, string, int, int, Puppy, Animal, string, int, Dog, int
  NEW r0, Dog
  LDK r1, "rex"
  LDI r2, 4
  LDI r3, 3
  CALL _, r0, Dog.init
  CALLV r6, r0, Animal.describe
  CALLN _, r6, println_string       // rex says woof
  GETF r2, r0, Animal.legs
  CALLN _, r2, print_int
  LDK r6, " "
  CALLN _, r6, print_string
  GETF r2, r0, Dog.tricks
  CALLN _, r2, println_int          // 4 3
  MOV r5, r0                        // a Dog seen as an Animal
  GETF r6, r5, Animal.name
  CALLN _, r6, println_string       // rex
  NEW r4, Puppy
  MOV r0, r4
  LDK r1, "bit"
  LDI r2, 4
  LDI r3, 0
  CALL _, r0, Dog.init
  CALLV r6, r4, Animal.describe
  CALLN _, r6, println_string       // bit says woof!
  NEW r5, Animal
  LDK r6, "thing"
  LDI r7, 0
  CALL _, r5, Animal.init
  CALLV r6, r5, Animal.describe
  CALLN _, r6, println_string       // thing says ...
  MOV r8, r4                        // the puppy learns 5 tricks
  LDI r9, 5
  CALLV r2, r8, Dog.learn
  CALLN _, r2, println_int          // 0 + 5
  RETV
end
