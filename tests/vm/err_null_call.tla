// CALLV on a null receiver: "null dereference", raised at the call site,
// three frames.
// expect: woof
// expect-runtime-error: null dereference
// expect-stderr: error: null dereference
// expect-stderr:   at speak_all (err_null_call.tl:21)
// expect-stderr:   at run (err_null_call.tl:30)
// expect-stderr:   at main (err_null_call.tl:40)
module "err_null_call"
source "err_null_call.tl"
main main
native println_string (string) : void = builtin "println_string"

class Dog
  vtable Dog.speak
end

method Dog.speak (Dog) : void owner Dog
  regs string
  line 5
  LDK r1, "woof"
  CALLN _, r1, println_string
  RETV
end

// calls speak on both elements; the second is null
method speak_all (Dog[]) : void static
  regs int, int, Dog
  line 20
  LDI r1, 0
  ALEN r2, r0
loop:
  AGETR r3, r0, r1
  line 21
  CALLV _, r3, Dog.speak
  line 22
  LOOP r1, r2, loop
  RETV
end

method run () : void static
  regs Dog[], int, Dog
  line 28
  LDI r1, 2
  NEWA r0, r1, Dog[]
  NEW r2, Dog
  LDI r1, 0
  APUTR r0, r1, r2
  line 30
  CALL _, r0, speak_all
  RETV
end

method main () : void static
  regs int
  line 40
  CALL _, r0, run
  RETV
end
