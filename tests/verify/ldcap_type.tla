// LDCAP into a register whose type differs from the capture's.
// expect-error: ldcap_type: method f$1 at offset 0: register r1 has type float, expected capture type int
module "ldcap_type"
main main
method f$1 (fn()) : void lambda
  caps int
  regs float
  LDCAP r1, 0
  RETV
end
method main () : void static
  RETV
end
