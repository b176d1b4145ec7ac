-- expect: lab 'variants_no_problem': variants need a problem
-- line: 3
return lab {
  id = "variants_no_problem", title = "Variants but no problem",
  steps = { step "One" [[ text ]] },
  variants = { variant { id = "v", title = "V", kernel = "reduce_sequential" } },
}
