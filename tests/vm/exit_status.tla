// exit(n): flushes stdout (the line printed before survives) and ends the
// program with status n, from a nested call; nothing after it runs.
// expect: before exit
// expect-exit: 3
module "exit_status"
source "exit_status.tl"
main main
native println_string (string) : void = builtin "println_string"
native print_string (string) : void = builtin "print_string"
native exit (int) : void = builtin "exit"

method leave (int) : void static
  regs string
  CALLN _, r0, exit
  LDK r1, "after exit in leave"
  CALLN _, r1, println_string
  RETV
end

method main () : void static
  regs string, int
  LDK r0, "before "
  CALLN _, r0, print_string
  LDK r0, "exit"
  CALLN _, r0, println_string
  LDI r1, 3
  CALL _, r1, leave
  LDK r0, "after exit in main"
  CALLN _, r0, println_string
  RETV
end
