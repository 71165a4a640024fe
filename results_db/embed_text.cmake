# Turns a text file into a C++ raw string literal (used to compile schema.sql in).
file(READ ${IN} CONTENT)
file(WRITE ${OUT} "R\"BEAST_SQL(${CONTENT})BEAST_SQL\"")
