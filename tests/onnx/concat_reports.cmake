# Joins the backend suite reports under the page's header (update_onnx_backend_md).
file(READ ${HEADER} text)
string(REPLACE "|" ";" REPORTS "${REPORTS}")
foreach(report ${REPORTS})
  file(READ ${report} part)
  string(APPEND text "\n${part}")
endforeach()
file(WRITE ${OUT} "${text}")
