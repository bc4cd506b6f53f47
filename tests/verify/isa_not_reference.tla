// ISA on an int register.
// expect-error: isa_not_reference: method main at offset 1: register r0 has type int, expected a reference
module "isa_not_reference"
main main
method main () : void static
  regs int, bool
  LDI r0, 4
  ISA r1, r0, string
  RETV
end
