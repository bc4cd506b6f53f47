// An interface has an imap (only classes have one).
// expect-error: imap_in_interface: class Named: an interface has no imap
module "imap_in_interface"
main main
interface Named
  methods Named.get
  imap Named.get = Named.get
end
method Named.get (Named) : string owner Named abstract
method main () : void static
  RETV
end
