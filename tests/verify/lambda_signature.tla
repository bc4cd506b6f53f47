// A lambda whose r0 function type disagrees with its parameters.
// expect-error: lambda_signature: method bad$1: closure r0 has type fn(int):int, which does not match the lambda's signature
module "lambda_signature"
main main
method bad$1 (fn(int):int, float) : int lambda
  regs int
  RET r2
end
method main () : void static
  RETV
end
