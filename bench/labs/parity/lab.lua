-- The same kernel measured two ways: as the shipped rung saxpy_per_element
-- and as a rung of this folder, compiled with NVRTC from the same source.
-- bench/decl-parity.sh runs it; the two rows should time alike.
return lab {
  id = "parity", title = "One kernel, shipped and from the lab folder", order = 900,
  problem = "saxpy",
  sizes = { "2^24", "2^26", "2^28" },
  steps = { step "Parity" [[ The rows `shipped` and `folder` run the same kernel. ]] },
  variants = {
    variant { id = "shipped", title = "saxpy_per_element, shipped", kernel = "saxpy_per_element",
              why = "compiled by nvcc into cudalab" },
    variant { id = "folder", title = "saxpy_per_element, from the lab folder",
              file = "rungs/per_element.cu", launcher = "rungs/per_element.lua",
              why = "compiled by NVRTC from the lab folder" },
  },
}
