# cudalab_lesson_json_points(JSON_TEXT TESTS_VAR EXTRA_VAR): a lesson.json's
# "test_points" and "extra_credit_points" (0 when it has none), for the
# build (CMakeLists.txt) and the check of the judges' points (points.cmake).
function(cudalab_lesson_json_points json tests_var extra_var)
  string(JSON tests GET "${json}" test_points)
  string(JSON extra ERROR_VARIABLE none GET "${json}" extra_credit_points)
  if(none)
    set(extra 0)
  endif()
  set(${tests_var} ${tests} PARENT_SCOPE)
  set(${extra_var} ${extra} PARENT_SCOPE)
endfunction()
