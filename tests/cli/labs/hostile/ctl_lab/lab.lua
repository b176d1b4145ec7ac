-- A lab whose text carries terminal control sequences and a byte that is
-- not UTF-8: an OSC that would retitle the window (ESC ] 0 ; ... BEL), a
-- colour change (ESC [ 31 m) and the byte 0xFF.  cudalab shows each as a
-- visible character and never sends it to a terminal or into JSON.
return lab {
  id = "ctl_lab",
  title = "Title \27]0;pwned\7 \27[31mred\255 end",
  order = 91,
  problem = "reduce_sum",
  sizes = { "2^10" },
  steps = {
    step "Step \27[2J one" [[
Text with a bell \7 and an escape \27[0m in it.
]],
  },
  variants = {
    variant { id = "naive", title = "Naive \27[5m", kernel = "reduce_interleaved_divergent",
              why = "the first rung, reused \7" },
  },
}
