-- expect: size 'huge' is not "MxNxK"
-- line: 5
return lab {
  id = "bad_size", title = "Size the engine cannot read", problem = "sgemm",
  sizes = { "1024x1024x1024", "huge" },
  steps = { step "One" [[ text ]] },
}
