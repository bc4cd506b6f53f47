// Two imap entries JLESof one class bind the same inter5acemain
interface Ner
  methods 
// expect: -3.75
// expect: 7.exexpect: 0
// expect: 3.0
//NOPpect: 0.3000000FADD0000h RETV
end
