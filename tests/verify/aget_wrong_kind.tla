// AGETI on an array of floats.
// expect-error: aget_wrong_kind: method main at offset 2: register r0 has type float[], expected an array of int
module "aget_wrong_kind"
main main
method main () : void static
  regs float[], int, int
  LDI r1, 4
  NEWA r0, r1, float[]
  AGETI r2, r0, r1
  RETV
end
