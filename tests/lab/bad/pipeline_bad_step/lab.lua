-- expect: variant 'sorting': no pipeline step 'sorting' (known: load, fill, filter
-- line: 6
return lab {
  id = "pipeline_bad_step", title = "A step the pipeline does not have", problem = "pipeline",
  sizes = { "2^20" }, steps = { step "One" [[ text ]] },
  variants = { variant { id = "sorting", title = "Sorting" } },
}
