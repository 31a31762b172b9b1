# Writes gpcnet's catalogue of kernels (python/gpcnet/data/catalog.json)
# from the C tables: runs `kernel_table_dump --json` into the build
# directory, then copies the result over the checked-in file only when it
# differs, so that an unchanged catalogue leaves the source tree untouched
# (and a read-only one readable). Run by the build (CMakeLists.txt, target
# gpcnet_catalog) as
#   cmake -DDUMP=<kernel_table_dump> -DBUILT=<build copy> -DCHECKED_IN=<source copy> -P write_catalog.cmake
# docs/design.md, "The Python catalogue".
execute_process(COMMAND "${DUMP}" --json OUTPUT_FILE "${BUILT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kernel_table_dump --json failed (${rc}): the catalogue was not written")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${BUILT}" "${CHECKED_IN}"
                RESULT_VARIABLE differs OUTPUT_QUIET ERROR_QUIET)
if(NOT differs EQUAL 0)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${BUILT}" "${CHECKED_IN}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "could not write ${CHECKED_IN}")
  endif()
  message(STATUS "python/gpcnet/data/catalog.json regenerated from the C kernel tables: commit it")
endif()
