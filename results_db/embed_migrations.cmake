# Turns migrations/NNNN_name.sql files into a C++ initializer list of
# {NNNN, "NNNN_name.sql", R"(sql)"} entries, in version order (compiled into
# the store, which runs them on databases of older versions).
file(GLOB FILES ${DIR}/[0-9][0-9][0-9][0-9]_*.sql)
list(SORT FILES)
set(BODY "")
foreach(FILE ${FILES})
  get_filename_component(NAME ${FILE} NAME)
  string(SUBSTRING ${NAME} 0 4 VERSION)
  math(EXPR VERSION "${VERSION}")  # "0002" -> 2
  file(READ ${FILE} CONTENT)
  string(APPEND BODY "{${VERSION}, \"${NAME}\", R\"BEAST_SQL(${CONTENT})BEAST_SQL\"},\n")
endforeach()
file(WRITE ${OUT} "${BODY}")
