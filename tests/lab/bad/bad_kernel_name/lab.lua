-- expect: kernel 'reduce-sum' is not a kernel name
-- line: 7
return lab {
  id = "bad_kernel_name", title = "Kernel name with a dash", problem = "reduce_sum",
  sizes = { 1048576 },
  steps = { step "One" [[ text ]] },
  variants = { variant { id = "v", title = "V", kernel = "reduce-sum" } },
}
