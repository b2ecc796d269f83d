# Command-line tests of collsim: golden outputs, exit codes, messages, dump files.
#
# Run by ctest as the test `cli`; by hand:
#   cmake -DCOLLSIM=<path to collsim> -DSOURCE_DIR=<repo root> -DWORK_DIR=<scratch dir> \
#         -P tests/cli/run_cli_tests.cmake
# Add -DUPDATE_GOLDEN=ON to rewrite the golden files from the binary instead of comparing
# (read the diff before committing it: see tests/README.md).
#
# Pure CMake (execute_process, file, string, regex) so that it runs wherever CMake does.
# Every expectation is checked and printed; the script fails once at the end, listing the
# expectations that failed. Expectations marked KNOWN BUG describe the intended behaviour
# of a bug not fixed yet: they fail until it is.
cmake_minimum_required(VERSION 3.25)

foreach(_var IN ITEMS COLLSIM SOURCE_DIR WORK_DIR)
  if(NOT ${_var})
    message(FATAL_ERROR "run_cli_tests.cmake: pass -D${_var}=... (see the top of this file)")
  endif()
endforeach()
if(NOT EXISTS "${COLLSIM}")
  message(FATAL_ERROR "run_cli_tests.cmake: COLLSIM=${COLLSIM} does not exist")
endif()
get_filename_component(WORK_DIR "${WORK_DIR}" ABSOLUTE)
get_filename_component(_source "${SOURCE_DIR}" ABSOLUTE)
if(WORK_DIR STREQUAL "/" OR WORK_DIR STREQUAL _source)
  message(FATAL_ERROR "run_cli_tests.cmake: refusing to use WORK_DIR=${WORK_DIR} as scratch space")
endif()
set(GOLDEN_DIR "${SOURCE_DIR}/tests/cli/golden")

# =============================================================================================
# Helpers
# =============================================================================================
# A case runs collsim once and leaves CASE_LABEL, CASE_RC, CASE_OUT (stdout), CASE_ERR
# (stderr) and CASE_KNOWN_BUG in the caller's scope; the expect_* functions check them.

set_property(GLOBAL PROPERTY CLI_FAILURES "")
set_property(GLOBAL PROPERTY CLI_CHECKS 0)

function(_count_check)
  get_property(n GLOBAL PROPERTY CLI_CHECKS)
  math(EXPR n "${n} + 1")
  set_property(GLOBAL PROPERTY CLI_CHECKS ${n})
endfunction()

# A regex or text on one line, for printing.
function(_one_line text out_var)
  string(REPLACE "\n" "\\n" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

function(_ok what)
  _count_check()
  message(STATUS "  ok    ${what}")
endfunction()

# Records a failed expectation and prints what collsim did, once per case.
function(_fail what)
  _count_check()
  if(CASE_KNOWN_BUG)
    string(APPEND what "  [KNOWN BUG: ${CASE_KNOWN_BUG}]")
  endif()
  message(STATUS "  FAIL  ${what}")
  string(REPLACE ";" "," entry "${CASE_LABEL}: ${what}")
  set_property(GLOBAL APPEND PROPERTY CLI_FAILURES "${entry}")
  get_property(shown GLOBAL PROPERTY "CLI_SHOWN_${CASE_LABEL}")
  if(NOT shown)
    set_property(GLOBAL PROPERTY "CLI_SHOWN_${CASE_LABEL}" TRUE)
    string(SUBSTRING "${CASE_OUT}" 0 3000 out)
    message(STATUS "        exit status: ${CASE_RC}\n-------- stdout --------\n${out}\n-------- stderr --------\n${CASE_ERR}\n------------------------")
  endif()
endfunction()

# run_case(<label> [TIMEOUT <seconds>] [KNOWN_BUG <what>] ARGS <collsim arguments>...)
function(run_case label)
  cmake_parse_arguments(PARSE_ARGV 1 C "" "TIMEOUT;KNOWN_BUG" "ARGS")
  if(NOT C_TIMEOUT)
    set(C_TIMEOUT 60)
  endif()
  list(JOIN C_ARGS " " shown)
  message(STATUS "${label}: collsim ${shown}")
  execute_process(COMMAND "${COLLSIM}" ${C_ARGS}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${C_TIMEOUT})
  set(CASE_LABEL "${label}" PARENT_SCOPE)
  set(CASE_RC "${rc}" PARENT_SCOPE)
  set(CASE_OUT "${out}" PARENT_SCOPE)
  set(CASE_ERR "${err}" PARENT_SCOPE)
  set(CASE_KNOWN_BUG "${C_KNOWN_BUG}" PARENT_SCOPE)
endfunction()

function(expect_exit code)
  if("${CASE_RC}" STREQUAL "${code}")
    _ok("exit status ${code}")
  else()
    _fail("exit status ${code} expected, got '${CASE_RC}'")
  endif()
endfunction()

# expect_output_contains(<text>...): stdout contains every text (plain substrings).
function(expect_output_contains)
  foreach(text IN LISTS ARGN)
    string(FIND "${CASE_OUT}" "${text}" at)
    if(at GREATER_EQUAL 0)
      _ok("stdout contains '${text}'")
    else()
      _fail("stdout does not contain '${text}'")
    endif()
  endforeach()
endfunction()

# _output_match(<want> <regex>...): stdout matches every regex (want TRUE) or none (FALSE).
function(_output_match want)
  foreach(regex IN LISTS ARGN)
    _one_line("${regex}" shown)
    set(matched FALSE)
    if("${CASE_OUT}" MATCHES "${regex}")
      set(matched TRUE)
    endif()
    if(matched AND want)
      _ok("stdout matches /${shown}/")
    elseif(NOT matched AND NOT want)
      _ok("stdout does not match /${shown}/")
    elseif(want)
      _fail("stdout does not match /${shown}/")
    else()
      _fail("stdout matches /${shown}/ but should not: '${CMAKE_MATCH_0}'")
    endif()
  endforeach()
endfunction()

# expect_output_matches(<regex>...): stdout matches every regex.
function(expect_output_matches)
  _output_match(TRUE ${ARGN})
endfunction()

# expect_output_not_matches(<regex>...): stdout matches none of the regexes.
function(expect_output_not_matches)
  _output_match(FALSE ${ARGN})
endfunction()

# expect_stderr_matches(<regex>...): stderr matches every regex.
function(expect_stderr_matches)
  foreach(regex IN LISTS ARGN)
    _one_line("${regex}" shown)
    if("${CASE_ERR}" MATCHES "${regex}")
      _ok("stderr matches /${shown}/")
    else()
      _fail("stderr does not match /${shown}/")
    endif()
  endforeach()
endfunction()

function(expect_stderr_empty)
  if("${CASE_ERR}" STREQUAL "")
    _ok("stderr is empty")
  else()
    _fail("stderr is not empty")
  endif()
endfunction()

# Regular files anywhere under <dir> (none when <dir> does not exist).
function(_files_under dir out_var)
  set(files "")
  if(IS_DIRECTORY "${dir}")
    file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE "${dir}" "${dir}/*")
    list(SORT files)
  endif()
  set(${out_var} "${files}" PARENT_SCOPE)
endfunction()

# expect_files_exactly(<dir> <name>...): <dir> holds exactly these regular files.
function(expect_files_exactly dir)
  _files_under("${dir}" got)
  set(want ${ARGN})
  list(SORT want)
  if(got STREQUAL want)
    _ok("${dir} holds exactly: ${want}")
  else()
    _fail("${dir} should hold exactly [${want}] but holds [${got}]")
  endif()
endfunction()

# expect_no_files(<dir>): a bad run left no file in its dump folder.
function(expect_no_files dir)
  _files_under("${dir}" got)
  if(got STREQUAL "")
    _ok("no files in ${dir}")
  else()
    _fail("files were created in ${dir}: ${got}")
  endif()
endfunction()

function(expect_path_absent path)
  if(EXISTS "${path}")
    _fail("${path} should not exist")
  else()
    _ok("${path} does not exist")
  endif()
endfunction()

# expect_file_sizes(<bytes> <file>...)
function(expect_file_sizes bytes)
  foreach(f IN LISTS ARGN)
    if(NOT EXISTS "${f}")
      _fail("${f} is missing")
      continue()
    endif()
    file(SIZE "${f}" size)
    if(size EQUAL bytes)
      _ok("${f} has ${bytes} bytes")
    else()
      _fail("${f} has ${size} bytes, ${bytes} expected")
    endif()
  endforeach()
endfunction()

function(_sha256 file out_var)
  if(EXISTS "${file}")
    file(SHA256 "${file}" hash)
  else()
    set(hash "missing")
  endif()
  set(${out_var} "${hash}" PARENT_SCOPE)
endfunction()

# expect_same_content(<file> <file>...): all files are byte-for-byte identical.
function(expect_same_content first)
  _sha256("${first}" want)
  foreach(f IN LISTS ARGN)
    _sha256("${f}" got)
    if(got STREQUAL want AND NOT got STREQUAL "missing")
      _ok("${f} is identical to ${first}")
    else()
      _fail("${f} differs from ${first}")
    endif()
  endforeach()
endfunction()

function(expect_different_content a b)
  _sha256("${a}" ha)
  _sha256("${b}" hb)
  if(NOT ha STREQUAL hb)
    _ok("${a} differs from ${b}")
  else()
    _fail("${a} and ${b} should differ")
  endif()
endfunction()

# Splits text into a list of lines; ';', '[' and ']' are escaped so that CMake's list
# handling leaves them alone (undo with _unescape_line).
function(_split_lines text out_var)
  string(REPLACE ";" "<SEMICOLON>" text "${text}")
  string(REPLACE "[" "<LBRACKET>" text "${text}")
  string(REPLACE "]" "<RBRACKET>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out_var} "${lines}" PARENT_SCOPE)
endfunction()

function(_unescape_line line out_var)
  string(REPLACE "<SEMICOLON>" ";" line "${line}")
  string(REPLACE "<LBRACKET>" "[" line "${line}")
  string(REPLACE "<RBRACKET>" "]" line "${line}")
  set(${out_var} "${line}" PARENT_SCOPE)
endfunction()

# expect_output_equals_golden(<file name in tests/cli/golden>): stdout equals the file exactly;
# on a difference prints the first differing line. With -DUPDATE_GOLDEN=ON rewrites the file.
function(expect_output_equals_golden name)
  set(golden "${GOLDEN_DIR}/${name}")
  if(UPDATE_GOLDEN)
    file(WRITE "${golden}" "${CASE_OUT}")
    message(STATUS "  UPDATED ${golden}: review `git diff` before committing it")
    return()
  endif()
  if(NOT EXISTS "${golden}")
    _fail("golden file ${golden} is missing (create it with -DUPDATE_GOLDEN=ON)")
    return()
  endif()
  file(READ "${golden}" want)
  string(REPLACE "\r\n" "\n" want "${want}")  # a checkout with CRLF line ends
  if("${CASE_OUT}" STREQUAL "${want}")
    _ok("stdout equals ${name}")
    return()
  endif()
  # Compare line by line, without the final newline of each (checked last).
  string(REGEX REPLACE "\n$" "" want_text "${want}")
  string(REGEX REPLACE "\n$" "" got_text "${CASE_OUT}")
  _split_lines("${want_text}" want_lines)
  _split_lines("${got_text}" got_lines)
  list(LENGTH want_lines n_want)
  list(LENGTH got_lines n_got)
  set(i 0)
  while(i LESS n_want AND i LESS n_got)
    list(GET want_lines ${i} w)
    list(GET got_lines ${i} g)
    if(NOT w STREQUAL g)
      break()
    endif()
    math(EXPR i "${i} + 1")
  endwhile()
  if(i EQUAL n_want AND i EQUAL n_got)
    _fail("stdout differs from ${name} only in the newline at the end")
    return()
  endif()
  math(EXPR line "${i} + 1")
  set(w "<end of file>")
  set(g "<end of output>")
  if(i LESS n_want)
    list(GET want_lines ${i} w)
    _unescape_line("${w}" w)
  endif()
  if(i LESS n_got)
    list(GET got_lines ${i} g)
    _unescape_line("${g}" g)
  endif()
  message(STATUS "        first difference at line ${line} (- golden, + output):\n- ${w}\n+ ${g}")
  _fail("stdout differs from ${name} at line ${line} (golden ${n_want} lines, output ${n_got})")
endfunction()

# expect_bad_input(<label> ARGS <collsim arguments>... STDERR <regex>... [NO_DUMP]
#                  [KNOWN_BUG <what>])
# A bad command: exit status 2 and an error naming the problem on stderr. Unless NO_DUMP,
# it also gets `--dump <fresh folder>`, which must hold no file afterwards.
function(expect_bad_input label)
  cmake_parse_arguments(PARSE_ARGV 1 B "NO_DUMP" "KNOWN_BUG" "ARGS;STDERR")
  set(args ${B_ARGS})
  set(dump "${WORK_DIR}/bad/${label}")
  if(NOT B_NO_DUMP)
    list(APPEND args --dump "${dump}")
  endif()
  run_case("${label}" TIMEOUT 30 KNOWN_BUG "${B_KNOWN_BUG}" ARGS ${args})
  expect_exit(2)
  expect_stderr_matches(${B_STDERR})
  if(NOT B_NO_DUMP)
    expect_no_files("${dump}")
  endif()
endfunction()

# A literal text as a regex (for paths in expected messages).
function(_regex_escape text out_var)
  string(REGEX REPLACE "([][.*+?()^$|\\\\])" "\\\\\\1" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Unsigned little-endian 32-bit integers of a binary file.
function(_read_u32_le file out_var)
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" len)
  set(values "")
  set(i 0)
  while(i LESS len)
    string(SUBSTRING "${hex}" ${i} 8 w)
    string(SUBSTRING "${w}" 0 2 b0)
    string(SUBSTRING "${w}" 2 2 b1)
    string(SUBSTRING "${w}" 4 2 b2)
    string(SUBSTRING "${w}" 6 2 b3)
    math(EXPR v "0x${b3}${b2}${b1}${b0}")
    list(APPEND values ${v})
    math(EXPR i "${i} + 8")
  endwhile()
  set(${out_var} "${values}" PARENT_SCOPE)
endfunction()

# =============================================================================================
# Tests
# =============================================================================================
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# --- 1. golden: the step table of ring all-reduce ---------------------------------------------
run_case(golden-explain-ring ARGS explain --collective all_reduce --algorithm ring --ranks 4 --count 8)
expect_exit(0)
expect_output_equals_golden(explain_ring_allreduce_4_count8.txt)
expect_stderr_empty()

# --- 2. version, help, list -------------------------------------------------------------------
file(STRINGS "${SOURCE_DIR}/CMakeLists.txt" _project REGEX "^project\\(collsim VERSION")
string(REGEX REPLACE ".*VERSION ([0-9.]+).*" "\\1" PROJECT_VERSION "${_project}")
string(REPLACE "." "\\." _version_regex "${PROJECT_VERSION}")
run_case(version ARGS --version)
expect_exit(0)
expect_output_matches("^collsim ${_version_regex}\n$")

run_case(help ARGS --help)
expect_exit(0)
expect_output_matches("\n  run  " "\n  explain  " "\n  list  ")

run_case(run-help ARGS run --help)
expect_exit(0)
expect_output_contains(--collective --algorithm --ranks --count --dtype --op --dump --backend)

run_case(no-subcommand ARGS)
expect_exit(0)
expect_output_contains("Subcommands:")

run_case(list ARGS list)
expect_exit(0)
expect_output_matches(
  "ring +steps 2\\(N-1\\) +bytes sent per rank 2\\(N-1\\)/N \\* n"
  "parameter_server +steps 2; partitioned \\(--slices P\\): P\\+1 +bytes sent per rank worker: n"
  "direct +steps 2 \\(1 for N = 2\\) +bytes sent per rank \\(N-1\\) \\* n"
  "data types: f32 f64 f16 bf16 i32 i64"
  "reduce ops: sum prod min max avg")
# The "used by" column: on a line of the algorithm's own block (its lines after the first
# are indented 23 spaces; the next algorithm's name is not), which libraries offer it.
set(_more "(\n                       [^\n]*)*")
set(_used "\n                       used by ")
expect_output_matches(
  "\n    ring +steps 2\\(N-1\\)[^\n]*${_more}${_used}NCCL Ring \\(NCCL_ALGO=Ring\\); Gloo allreduce ring"
  "\n    recursive_doubling +steps lg N[^\n]*${_more}${_used}Open MPI tuned recursive_doubling \\(3\\)[^\n]*; MPICH recursive_doubling"
  "\n    rabenseifner +steps[^\n]*${_more}${_used}Open MPI tuned rabenseifner \\(6\\)[^\n]*; MPICH reduce_scatter_allgather"
  "\n    double_binary_tree +steps[^\n]*${_more}${_used}NCCL Tree \\(NCCL_ALGO=Tree\\)"
  "\n    chain +steps[^\n]*${_more}${_used}NCCL Broadcast"
  "\n    pat +steps ceil\\(lg N\\)[^\n]*${_more}${_used}NCCL AllGather PAT \\(NCCL_ALGO=PAT"
  "\n    pat +steps ceil\\(lg N\\)[^\n]*${_more}${_used}NCCL ReduceScatter PAT \\(NCCL_ALGO=PAT")
# Every entry of every "used by" line names the library it speaks of, first. (The entries'
# "; " would split CMake's lists: mark them before matching the lines.)
string(REPLACE "; " "<next>" _listing "${CASE_OUT}")
string(REGEX MATCHALL "used by [^\n]*" _used_by_lines "${_listing}")
list(LENGTH _used_by_lines _used_by_count)
if(_used_by_count LESS 20)
  _fail("only ${_used_by_count} 'used by' lines")
else()
  _ok("${_used_by_count} 'used by' lines")
endif()
set(_unnamed "")
foreach(_line IN LISTS _used_by_lines)
  string(REGEX REPLACE "^used by " "" _line "${_line}")
  string(REPLACE "<next>" ";" _entries "${_line}")
  foreach(_entry IN LISTS _entries)
    if(NOT _entry MATCHES "^(NCCL|Gloo|Open MPI|MPICH|Horovod|BytePS) ")
      list(APPEND _unnamed "${_entry}")
    endif()
  endforeach()
endforeach()
if(_unnamed)
  _fail("'used by' entries that do not start with their library: ${_unnamed}")
else()
  _ok("every 'used by' entry starts with its library")
endif()

# --- 3. runs --------------------------------------------------------------------------------------
run_case(run-default ARGS run)
expect_exit(0)
expect_output_contains("all_reduce with ring on 4 ranks" "verified" "busbw" "algbw")
expect_stderr_empty()

run_case(run-quiet ARGS run -q)
expect_exit(0)
expect_output_matches("^verified\n$")
expect_stderr_empty()

run_case(run-parameter-server ARGS run --algorithm parameter_server --servers 2 --count 1K)
expect_exit(0)
expect_output_contains("all_reduce with parameter_server on 4 ranks" "verified")

run_case(run-parameter-server-colocated ARGS run --algorithm parameter_server --servers 2 --colocated --count 1K)
expect_exit(0)
expect_output_contains("all_reduce with parameter_server on 4 ranks" "verified")

run_case(run-direct ARGS run --algorithm direct --ranks 3 --count 1K)
expect_exit(0)
expect_output_contains("all_reduce with direct on 3 ranks" "verified")

run_case(run-ring-slices ARGS run --slices 4 --ranks 5 --count 1000)
expect_exit(0)
expect_output_contains("verified")

run_case(run-one-rank ARGS run --ranks 1 --count 8)
expect_exit(0)
expect_output_contains("verified")

# No --algorithm: every collective runs its default algorithm (AlgorithmInfo::is_default),
# not all_reduce's ring ("unknown algorithm 'ring'" for broadcast, once).
foreach(_default IN ITEMS all_reduce:ring broadcast:binomial_tree reduce:binomial_tree all_gather:ring
                          gather:binomial_tree scatter:binomial_tree reduce_scatter:ring all_to_all:direct
                          barrier:dissemination send_recv:direct)
  string(REPLACE ":" ";" _default "${_default}")
  list(GET _default 0 _collective)
  list(GET _default 1 _algorithm)
  run_case(run-default-algorithm-${_collective} ARGS run --collective ${_collective} --count 1K)
  expect_exit(0)
  expect_output_contains("${_collective} with ${_algorithm} on 4 ranks" "verified")
endforeach()

foreach(_dtype IN ITEMS f32 f64 f16 bf16 i32 i64)
  run_case(run-dtype-${_dtype} ARGS run -q --dtype ${_dtype} --count 100)
  expect_exit(0)
  expect_output_matches("^verified\n$")
endforeach()
foreach(_op IN ITEMS sum prod min max avg)
  run_case(run-op-${_op} ARGS run -q --op ${_op} --count 100)
  expect_exit(0)
  expect_output_matches("^verified\n$")
endforeach()

run_case(run-count-zero ARGS run --count 0)
expect_exit(0)
expect_output_contains("verified" "algbw" "busbw" "time")

run_case(run-count-suffix ARGS run -q --count 2k)
expect_exit(0)
expect_output_matches("^verified\n$")

# --- 4. dump files --------------------------------------------------------------------------------
set(_dump "${WORK_DIR}/dump_i32")
run_case(dump-i32 ARGS run --ranks 3 --count 5 --dtype i32 --op sum --dump "${_dump}")
expect_exit(0)
expect_output_contains("verified" "${_dump}")
expect_files_exactly("${_dump}"
  rank0.in.bin rank0.out.bin rank1.in.bin rank1.out.bin rank2.in.bin rank2.out.bin)
expect_file_sizes(20 "${_dump}/rank0.in.bin" "${_dump}/rank1.in.bin" "${_dump}/rank2.in.bin"
                     "${_dump}/rank0.out.bin" "${_dump}/rank1.out.bin" "${_dump}/rank2.out.bin")
expect_same_content("${_dump}/rank0.out.bin" "${_dump}/rank1.out.bin" "${_dump}/rank2.out.bin")
expect_different_content("${_dump}/rank0.in.bin" "${_dump}/rank0.out.bin")
expect_different_content("${_dump}/rank0.in.bin" "${_dump}/rank1.in.bin")

# The dumped output is the element-wise sum (mod 2^32) of the dumped inputs.
set(_sums "")
set(_out "")
if(EXISTS "${_dump}/rank2.in.bin" AND EXISTS "${_dump}/rank0.out.bin")
  _read_u32_le("${_dump}/rank0.in.bin" _in0)
  _read_u32_le("${_dump}/rank1.in.bin" _in1)
  _read_u32_le("${_dump}/rank2.in.bin" _in2)
  _read_u32_le("${_dump}/rank0.out.bin" _out)
endif()
list(LENGTH _in0 _n0)
list(LENGTH _in1 _n1)
list(LENGTH _in2 _n2)
list(LENGTH _out _n3)
if(NOT "${_n0}${_n1}${_n2}${_n3}" STREQUAL "5555")
  _fail("cannot check the sum: the dump files do not hold 5 values each")
else()
  foreach(_i RANGE 4)
    list(GET _in0 ${_i} _a)
    list(GET _in1 ${_i} _b)
    list(GET _in2 ${_i} _c)
    math(EXPR _s "(${_a} + ${_b} + ${_c}) & 0xFFFFFFFF")
    list(APPEND _sums ${_s})
  endforeach()
  if(_sums STREQUAL _out)
    _ok("rank0.out.bin is the sum of the three inputs")
  else()
    _fail("rank0.out.bin [${_out}] is not the sum of the inputs [${_sums}]")
  endif()
endif()

# f64, count 7, default 4 ranks, into a folder that does not exist yet (nested).
set(_dump "${WORK_DIR}/dump_f64/created/here")
run_case(dump-f64 ARGS run -q --dtype f64 --count 7 --dump "${_dump}")
expect_exit(0)
expect_files_exactly("${_dump}" rank0.in.bin rank0.out.bin rank1.in.bin rank1.out.bin
                                rank2.in.bin rank2.out.bin rank3.in.bin rank3.out.bin)
foreach(_r RANGE 3)
  expect_file_sizes(56 "${_dump}/rank${_r}.in.bin" "${_dump}/rank${_r}.out.bin")
endforeach()

# Same seed, same inputs; another seed, other inputs. Dumping again overwrites in place.
set(_dump_a "${WORK_DIR}/dump_seed_a")
set(_dump_b "${WORK_DIR}/dump_seed_b")
run_case(dump-seed-1 ARGS run -q --count 16 --seed 1 --dump "${_dump_a}")
expect_exit(0)
run_case(dump-seed-1-again ARGS run -q --count 16 --seed 1 --dump "${_dump_b}")
expect_exit(0)
expect_same_content("${_dump_a}/rank0.in.bin" "${_dump_b}/rank0.in.bin")
run_case(dump-seed-2-overwrite ARGS run -q --count 16 --seed 2 --dump "${_dump_b}")
expect_exit(0)
expect_different_content("${_dump_a}/rank0.in.bin" "${_dump_b}/rank0.in.bin")
expect_files_exactly("${_dump_b}" rank0.in.bin rank0.out.bin rank1.in.bin rank1.out.bin
                                  rank2.in.bin rank2.out.bin rank3.in.bin rank3.out.bin)

# --- 5. bad input: exit 2, a message naming the flag and value, no files ---------------------------
expect_bad_input(unknown-collective ARGS run --collective allreduce STDERR "--collective" "'allreduce'")
expect_bad_input(unknown-algorithm ARGS run --algorithm tree STDERR "algorithm 'tree'")
expect_bad_input(unknown-dtype ARGS run --dtype f8 STDERR "--dtype" "'f8'")
expect_bad_input(unknown-op ARGS run --op mean STDERR "--op" "'mean'")
expect_bad_input(ranks-zero ARGS run --ranks 0 STDERR "--ranks" "got 0")
expect_bad_input(ranks-negative ARGS run --ranks -3 STDERR "--ranks" "got -3")
expect_bad_input(ranks-too-many ARGS run --ranks 1025 STDERR "--ranks" "got 1025")
expect_bad_input(ranks-not-a-number ARGS run --ranks abc STDERR "--ranks" "abc")
expect_bad_input(count-negative ARGS run --count -5 STDERR "--count" "'-5'")
expect_bad_input(count-bad-suffix ARGS run --count 12X STDERR "--count" "'12X'")
expect_bad_input(count-overflow ARGS run --count 99999999999999999999
  STDERR "--count" "'99999999999999999999'")
expect_bad_input(count-suffix-overflow ARGS run --count 99999999999G STDERR "--count" "99999999999G")
# Refused from the sizes alone, before any allocation: a timeout here means it tried.
expect_bad_input(count-too-large-for-memory ARGS run --count 1G --ranks 1024
  STDERR "--count (1G|1073741824)" "(memory|petabyte|absurd)")
expect_bad_input(count-absurd ARGS run --count 1024G --ranks 1024
  STDERR "--count (1024G|1099511627776)" "petabyte|absurd")
# Under an address-space limit (ulimit -v 1 GiB), a run whose 2 GiB of buffers fit this
# machine's memory but not the limit is refused before it allocates, naming the limit
# (sim/run/run.h, available_memory). Not under a sanitizer: ASan and TSan reserve terabytes
# of address space for their shadow memory and cannot start under ulimit -v.
if(SANITIZE)
  message(STATUS "count-over-ulimit: skipped in this ${SANITIZE} sanitizer build (its shadow memory needs an unlimited address space)")
else()
  set(CASE_LABEL count-over-ulimit)
  set(_dump "${WORK_DIR}/bad/count-over-ulimit")
  message(STATUS "count-over-ulimit: sh -c 'ulimit -v 1048576; collsim run --ranks 8 --count 32M --dump ...'")
  execute_process(COMMAND sh -c "ulimit -v 1048576 && exec \"$@\"" sh "${COLLSIM}" run --ranks 8 --count 32M
                          --dump "${_dump}"
    RESULT_VARIABLE CASE_RC OUTPUT_VARIABLE CASE_OUT ERROR_VARIABLE CASE_ERR TIMEOUT 30)
  set(CASE_KNOWN_BUG "")
  expect_exit(2)
  # MiB, not GiB: the figure is the limit's (less what collsim maps already), not MemAvailable's.
  expect_stderr_matches("--count (32M|33554432) needs [0-9.]+ GiB of buffers for 8 ranks, but only [0-9.]+ MiB of memory is available under the address-space limit \\(ulimit -v\\)")
  expect_no_files("${_dump}")
endif()
expect_bad_input(servers-exceed-workers ARGS run --algorithm parameter_server --servers 5 --ranks 4
  STDERR "--servers \\(5\\)" "--ranks \\(4\\)")
expect_bad_input(servers-zero ARGS run --algorithm parameter_server --servers 0 STDERR "--servers" "got 0")
expect_bad_input(root-out-of-range ARGS run --root 7 --ranks 4 STDERR "--root" "got 7")
expect_bad_input(slices-negative ARGS run --slices -1 STDERR "--slices" "got -1")
expect_bad_input(unknown-flag ARGS run --bogus STDERR "--bogus")
expect_bad_input(extra-argument ARGS run extra STDERR "extra")
expect_bad_input(unknown-subcommand ARGS frobnicate STDERR "frobnicate" NO_DUMP)
expect_bad_input(unknown-backend ARGS run --backend gpu STDERR "--backend" "'gpu'")
expect_bad_input(unknown-placement ARGS run --placement gpus STDERR "--placement" "'gpus'")
expect_bad_input(explain-unknown-algorithm ARGS explain --algorithm tree STDERR "algorithm 'tree'" NO_DUMP)
expect_bad_input(explain-ranks-zero ARGS explain --ranks 0 STDERR "--ranks" "got 0" NO_DUMP)
expect_bad_input(explain-count-bad ARGS explain --count 12X STDERR "--count" "'12X'" NO_DUMP)

# --backend cuda: without a CUDA backend and device, exit 2 with a clear message; where
# one works, it must verify like the CPU backend.
set(_dump "${WORK_DIR}/bad/backend-cuda")
run_case(backend-cuda ARGS run --backend cuda --count 1K --dump "${_dump}")
if(CASE_RC STREQUAL "0")
  expect_output_contains("verified")
else()
  expect_exit(2)
  expect_stderr_matches("--backend cuda" "not available|no CUDA|device")
  expect_no_files("${_dump}")
endif()

# An unwritable dump folder: a path below a regular file (root ignores permission bits).
set(_afile "${WORK_DIR}/afile")
file(WRITE "${_afile}" "not a folder\n")
file(SHA256 "${_afile}" _afile_hash)
run_case(dump-below-a-file ARGS run --count 4 --dump "${_afile}/sub")
expect_exit(2)
_regex_escape("${_afile}" _afile_regex)
expect_stderr_matches("--dump" "${_afile_regex}/sub")
run_case(dump-onto-a-file ARGS run --count 4 --dump "${_afile}")
expect_exit(2)
expect_stderr_matches("--dump" "${_afile_regex}")
file(SHA256 "${_afile}" _hash)
if(IS_DIRECTORY "${_afile}" OR NOT _hash STREQUAL _afile_hash)
  _fail("${_afile} was changed")
else()
  _ok("${_afile} is unchanged")
endif()

# --- 6. regressions: bugs found while writing these tests, now fixed ---------------------------
# A bad command should not even create its dump folder.
set(_dump "${WORK_DIR}/bad/not-created")
run_case(bad-input-creates-no-folder
  ARGS run --ranks 0 --dump "${_dump}")
expect_exit(2)
expect_path_absent("${_dump}")

# The dump is all or nothing: when one file cannot be put in place, none of the set is.
set(_dump "${WORK_DIR}/dump_blocked")
file(MAKE_DIRECTORY "${_dump}/rank1.out.bin")
run_case(dump-all-or-nothing
  ARGS run -q --ranks 3 --count 5 --dump "${_dump}")
expect_exit(2)
expect_stderr_matches("rank1\\.out\\.bin")
expect_no_files("${_dump}")

# --seed is unsigned: a negative or too large value is an error, not wrapped or clamped.
expect_bad_input(seed-negative ARGS run -q --count 16 --seed -1 STDERR "--seed" NO_DUMP)
expect_bad_input(seed-overflow ARGS run -q --count 16 --seed 18446744073709551616 STDERR "--seed" NO_DUMP)

# --- 7. scenario files ------------------------------------------------------------------------------
# Golden: the default scenario (what scripts/run runs), without the lines that depend on
# timing or on the machine (time, algbw, busbw, backend).
set(_ring_scenario "${SOURCE_DIR}/scenarios/ring_allreduce_4.toml")
run_case(golden-scenario-ring ARGS run "${_ring_scenario}")
expect_exit(0)
string(REGEX REPLACE "(^|\n)(backend auto|  time |  algbw |  busbw |  backend )[^\n]*" "" CASE_OUT "${CASE_OUT}")
string(REGEX REPLACE "^\n" "" CASE_OUT "${CASE_OUT}")
string(REPLACE "${SOURCE_DIR}/" "<SOURCE_DIR>/" CASE_OUT "${CASE_OUT}")
expect_output_equals_golden(run_scenario_ring_allreduce_4.txt)
expect_stderr_empty()

# A lesson's description (issue 33, part 6): after the title, rendered for the run (here at
# 8 ranks: 2(N-1) = 14 chunks, two phases of 7 steps), wrapped and indented like the report;
# not with --quiet.
set(_ring_lesson "${SOURCE_DIR}/scenarios/lessons/01_ring_allreduce.toml")
run_case(lesson-description ARGS run "${_ring_lesson}" --ranks 8 --backend cpu)
expect_exit(0)
expect_output_matches("scenario: Ring all-reduce, step by step [^\n]*\n  8 ranks each hold 8 numbers"
                      "two phases of N-1 = 7 steps each" "Each rank sends 2\\(N-1\\) = 14 chunks"
                      "\n\n  Try:\n  - --ranks 8: this run has it already\n  - --ranks 3: [^\n]*\n")
string(REGEX MATCH "scenario: [^\n]*\n(.*)\nsteps:\n" _ "${CASE_OUT}")
set(_description "${CMAKE_MATCH_1}")
set(_wide 0)
_split_lines("${_description}" _lines)
foreach(_line IN LISTS _lines)
  _unescape_line("${_line}" _line)
  string(LENGTH "${_line}" _n)
  if(_n GREATER 100)
    set(_wide 1)
  endif()
endforeach()
if(NOT _description OR _wide OR _description MATCHES "[{}]|(^|\n)[^ \n]")
  _fail("the description is rendered, indented and wrapped at 100 columns")
else()
  _ok("the description is rendered, indented and wrapped at 100 columns")
endif()
run_case(lesson-description-quiet ARGS run "${_ring_lesson}" --ranks 8 --backend cpu --quiet)
expect_exit(0)
if(CASE_OUT STREQUAL "verified\n")
  _ok("--quiet prints the verdict alone, no description")
else()
  _fail("--quiet prints the verdict alone, no description: '${CASE_OUT}'")
endif()

# A lesson that runs on the model alone ([run] model_only): predicted, nothing executed, exit 0,
# without --model-only; --backend is refused, naming the file and the key.
run_case(lesson-model-only ARGS run lessons/22_scale --quiet)
expect_exit(0)
expect_output_matches("^predicted [0-9.]+ ms\n$")
run_case(lesson-model-only-report ARGS run lessons/22_scale --ranks 16)
expect_exit(0)
expect_output_contains("12 phases on 16 ranks" "not executed (--model-only)")
expect_output_matches("With[ \n]+only[ \n]+2[ \n]+nodes[ \n]+the[ \n]+NCCL[ \n]+tree[ \n]+still[ \n]+wins")
# At 16 384 GPUs (2048 nodes) in seconds: the rings from one node's transfers, the trees whole;
# the ring's 2(N-1) latencies now outweigh its bytes at 256 MiB, and the text says so.
run_case(lesson-model-only-16384 TIMEOUT 300 ARGS run lessons/22_scale --ranks 16384 --answers)
expect_exit(0)
expect_output_contains("12 phases on 16384 ranks" "Answer: 28261.2 µs: 32766 hops in a row" "not executed (--model-only)")
expect_output_matches("At[ \n]+2048[ \n]+nodes[ \n]+the[ \n]+NCCL[ \n]+tree[ \n]+wins[ \n]+at[ \n]+256[ \n]+MiB[ \n]+too")
# Its storyboard draws the predicted steps (nothing executed): 16 ranks, every phase.
run_case(lesson-model-only-storyboard ARGS storyboard lessons/22_scale --ranks 16 --out "${WORK_DIR}/l22-board")
expect_exit(0)
expect_output_contains("of the lesson's 12 phases")
if(EXISTS "${WORK_DIR}/l22-board/index.html")
  _ok("the storyboard of a model-only lesson is written")
else()
  _fail("the storyboard of a model-only lesson is written")
endif()
expect_bad_input(lesson-topology-fixed NO_DUMP ARGS run lessons/22_scale --group-size 4
  STDERR "--group-size: " "is written for its own .topology. group_size = 8 .topology_fixed")
expect_bad_input(lesson-model-only-backend NO_DUMP ARGS run lessons/22_scale --backend cpu
  STDERR "--backend cpu: " "22_scale.toml runs on the timing model alone .\\[run\\] model_only = true.")

run_case(scenario-parameter-server ARGS run "${SOURCE_DIR}/scenarios/parameter_server_4.toml")
expect_exit(0)
expect_output_contains("scenario: Parameter server" "parameter_server on 4 ranks + 1 server rank" "verified")

# Flags the user gives override the file; the others keep the file's values.
run_case(scenario-flag-override ARGS run "${_ring_scenario}" --ranks 3 --count 12 --dtype i32)
expect_exit(0)
expect_output_contains("scenario: Ring all-reduce" "all_reduce with ring on 3 ranks, count 12 (48 B per rank), i32, sum")

run_case(explain-scenario ARGS explain "${_ring_scenario}" --count 8)
expect_exit(0)
expect_output_equals_golden(explain_ring_allreduce_4_count8.txt)

# Bad scenario files: exit 2, file:line:column and the key, nothing written.
set(_scenarios "${WORK_DIR}/scenarios")
file(WRITE "${_scenarios}/malformed.toml" "format = 1\n[collective]\nranks = = 4\n")
file(WRITE "${_scenarios}/unknown-key.toml" "format = 1\n[collective]\nrank = 4\n")
file(WRITE "${_scenarios}/wrong-type.toml" "format = 1\n[collective]\nranks = \"four\"\n")
file(WRITE "${_scenarios}/negative-ranks.toml" "format = 1\n[collective]\nranks = -4\n")
file(WRITE "${_scenarios}/no-format.toml" "title = \"x\"\n")
foreach(_case IN ITEMS malformed unknown-key wrong-type negative-ranks no-format)
  _regex_escape("${_scenarios}/${_case}.toml" _file_regex)
  set(_trace "${_scenarios}/${_case}.trace.json")
  set(_expected "${_file_regex}:[0-9]+:[0-9]+: ")
  if(_case STREQUAL "unknown-key")
    list(APPEND _expected "key 'collective\\.rank': unknown key")
  elseif(_case STREQUAL "wrong-type")
    list(APPEND _expected "${_file_regex}:3:9: key 'collective\\.ranks': expected an integer")
  elseif(_case STREQUAL "negative-ranks")
    list(APPEND _expected "${_file_regex}:3:9: key 'collective\\.ranks': must be between 1 and [0-9]+, got -4")
  elseif(_case STREQUAL "no-format")
    list(APPEND _expected "key 'format' is missing")
  else()
    list(APPEND _expected "${_file_regex}:3:[0-9]+: not valid TOML")
  endif()
  expect_bad_input(scenario-${_case} ARGS run "${_scenarios}/${_case}.toml" --trace "${_trace}" STDERR ${_expected})
  expect_path_absent("${_trace}")
endforeach()
_regex_escape("${_scenarios}/missing.toml" _file_regex)
expect_bad_input(scenario-missing ARGS run "${_scenarios}/missing.toml"
  STDERR "${_file_regex}: cannot read the scenario file")

# --- 8. traces: --trace, --chrome, --csv, and `convert` (import) ------------------------------------
set(_traces "${WORK_DIR}/traces")
file(MAKE_DIRECTORY "${_traces}")
run_case(traces-written ARGS run --algorithm parameter_server --servers 2 --count 100
  --trace "${_traces}/t.json" --chrome "${_traces}/c.json" --csv "${_traces}/t.csv")
expect_exit(0)
expect_output_contains("trace       ${_traces}/t.json" "chrome      ${_traces}/c.json" "csv         ${_traces}/t.csv")
expect_files_exactly("${_traces}" c.json t.csv t.json)
# One record per transfer; one complete event per transfer; a header and one row per transfer.
set(CASE_LABEL traces-content)
if(EXISTS "${_traces}/t.json" AND EXISTS "${_traces}/c.json" AND EXISTS "${_traces}/t.csv")
  file(READ "${_traces}/t.json" _json)
  string(JSON _format GET "${_json}" format)
  string(JSON _transfers LENGTH "${_json}" schedule transfers)
  string(JSON _records LENGTH "${_json}" records)
  if(_format STREQUAL "collsim-trace" AND _transfers EQUAL _records AND _transfers GREATER 0)
    _ok("t.json: a collsim trace with ${_records} records for ${_transfers} transfers")
  else()
    _fail("t.json: format '${_format}', ${_records} records for ${_transfers} transfers")
  endif()
  file(READ "${_traces}/c.json" _chrome)
  string(REGEX MATCHALL "\"ph\": \"X\"" _events "${_chrome}")
  list(LENGTH _events _events)
  math(EXPR _both "2 * ${_transfers}")  # the measured track and the timing model's predicted track
  if(_events EQUAL _both)
    _ok("c.json: ${_events} complete events, one measured and one predicted per transfer")
  else()
    _fail("c.json: ${_events} complete events for ${_transfers} transfers (2 per transfer expected)")
  endif()
  file(STRINGS "${_traces}/t.csv" _rows)
  list(LENGTH _rows _rows)
  math(EXPR _want "${_transfers} + 1")
  if(_rows EQUAL _want)
    _ok("t.csv: a header and ${_transfers} rows")
  else()
    _fail("t.csv: ${_rows} lines for ${_transfers} transfers")
  endif()
else()
  _fail("a trace file is missing")
endif()

# Import round trip: the JSON trace read back and written again is the same file, and the
# other formats made from it are the same as those the run wrote.
run_case(convert-missing-folder ARGS convert "${_traces}/t.json"
  --trace "${_traces}/again/t.json" --chrome "${_traces}/again/c.json" --csv "${_traces}/again/t.csv")
expect_exit(2)  # the folder "again" does not exist: refused before anything is written
expect_stderr_matches("--trace" "again")
expect_path_absent("${_traces}/again")
file(MAKE_DIRECTORY "${_traces}/again")
run_case(convert-round-trip ARGS convert "${_traces}/t.json"
  --trace "${_traces}/again/t.json" --chrome "${_traces}/again/c.json" --csv "${_traces}/again/t.csv")
expect_exit(0)
expect_same_content("${_traces}/t.json" "${_traces}/again/t.json")
expect_same_content("${_traces}/c.json" "${_traces}/again/c.json")
expect_same_content("${_traces}/t.csv" "${_traces}/again/t.csv")

# An unwritable output path: exit 2 and no file, not even a partial one (the check comes
# before the run; a path below a regular file cannot be created even by root).
foreach(_flag IN ITEMS --trace --chrome --csv)
  expect_bad_input(unwritable${_flag} ARGS run --count 16 ${_flag} "${_afile}/out.json"
    STDERR "${_flag}" "${_afile_regex}")
endforeach()
expect_bad_input(output-is-a-folder ARGS run --count 16 --trace "${_traces}" STDERR "--trace" "folder")

# Bad trace files for `convert`: exit 2 naming the file, and the line or key.
file(WRITE "${_traces}/not-ours.json" "{\"traceEvents\": []}\n")
string(SUBSTRING "${_json}" 0 600 _head)
file(WRITE "${_traces}/truncated.json" "${_head}")
string(REPLACE "\"version\": 1," "\"version\": 99," _v99 "${_json}")
file(WRITE "${_traces}/version.json" "${_v99}")
string(REPLACE "\"ranks\": 4," "\"ranks\": \"4\"," _wrong "${_json}")
file(WRITE "${_traces}/wrong-type.json" "${_wrong}")
_regex_escape("${_traces}" _dir_regex)
expect_bad_input(convert-not-ours NO_DUMP ARGS convert "${_traces}/not-ours.json" --csv "${_traces}/x.csv"
  STDERR "${_dir_regex}/not-ours\\.json: not a collsim trace")
expect_bad_input(convert-truncated NO_DUMP ARGS convert "${_traces}/truncated.json" --csv "${_traces}/x.csv"
  STDERR "${_dir_regex}/truncated\\.json:[0-9]+:[0-9]+: not valid JSON")
expect_bad_input(convert-version NO_DUMP ARGS convert "${_traces}/version.json" --csv "${_traces}/x.csv"
  STDERR "${_dir_regex}/version\\.json: key 'version': trace format version 99 is not supported")
expect_bad_input(convert-wrong-type NO_DUMP ARGS convert "${_traces}/wrong-type.json" --csv "${_traces}/x.csv"
  STDERR "${_dir_regex}/wrong-type\\.json: key 'request\\.ranks': expected an integer")
expect_bad_input(convert-missing NO_DUMP ARGS convert "${_traces}/missing.json"
  STDERR "${_dir_regex}/missing\\.json: cannot read")
expect_path_absent("${_traces}/x.csv")

# Lesson traces (collsim-lesson) open again: the lesson rebuilt from the text the file
# carries, at the ranks, seed and topology it ran with, checked against every request and
# transfer, with the file's measured times. Written again, the same bytes; and the page, the
# storyboard and the other formats are made from it.
set(_lesson17 "${SOURCE_DIR}/scenarios/lessons/17_parameter_server_training.toml")
run_case(lesson-trace-written ARGS run "${_lesson17}" --ranks 6 --seed 9 --topology ring --quiet
  --trace "${_traces}/l.lesson.json" --chrome "${_traces}/l.chrome.json")
expect_exit(0)
file(MAKE_DIRECTORY "${_traces}/lesson-again")
run_case(lesson-trace-convert ARGS convert "${_traces}/l.lesson.json"
  --trace "${_traces}/lesson-again/l.lesson.json" --chrome "${_traces}/lesson-again/l.chrome.json"
  --csv "${_traces}/lesson-again/l.csv")
expect_exit(0)
expect_output_matches("l\\.lesson\\.json: lesson 'Training with parameter servers \\(synchronous\\)' of [0-9]+ phases on 8 ranks, verified")
expect_same_content("${_traces}/l.lesson.json" "${_traces}/lesson-again/l.lesson.json")
expect_same_content("${_traces}/l.chrome.json" "${_traces}/lesson-again/l.chrome.json")
run_case(lesson-trace-html ARGS html "${_traces}/l.lesson.json" --out "${_traces}/lesson-again/l.html"
  --trace "${_traces}/lesson-again/l.html.lesson.json")
expect_exit(0)
expect_output_matches("page: the lesson's [0-9]+ phases \\(Training with parameter servers")
expect_same_content("${_traces}/l.lesson.json" "${_traces}/lesson-again/l.html.lesson.json")
run_case(lesson-trace-storyboard ARGS storyboard "${_traces}/l.lesson.json" --out "${_traces}/lesson-again/board")
expect_exit(0)
expect_output_matches("storyboard: [0-9]+ frames of the lesson's [0-9]+ phases")
# Bad lesson traces: exit 2 naming the file and the key; nothing written.
file(READ "${_traces}/l.lesson.json" _lesson_json)
string(REPLACE "\"version\": 2," "\"version\": 1," _v1 "${_lesson_json}")
file(WRITE "${_traces}/lesson-v1.json" "${_v1}")
string(REPLACE "\"src\": 0, \"dst\": 6" "\"src\": 1, \"dst\": 6" _moved "${_lesson_json}")
file(WRITE "${_traces}/lesson-moved.json" "${_moved}")
string(REPLACE "[training]" "[training" _broken "${_lesson_json}")
file(WRITE "${_traces}/lesson-broken-text.json" "${_broken}")
expect_bad_input(lesson-trace-v1 NO_DUMP ARGS convert "${_traces}/lesson-v1.json" --csv "${_traces}/x.csv"
  STDERR "${_dir_regex}/lesson-v1\\.json: key 'version': a version 1 lesson trace does not carry its lesson's text")
expect_bad_input(lesson-trace-moved NO_DUMP ARGS convert "${_traces}/lesson-moved.json" --csv "${_traces}/x.csv"
  STDERR "${_dir_regex}/lesson-moved\\.json: key 'phases\\[[0-9]+\\]\\.transfers\\[[0-9]+\\]\\.src': the lesson it carries rebuilds 0, but the file records 1")
expect_bad_input(lesson-trace-broken-text NO_DUMP ARGS html "${_traces}/lesson-broken-text.json" --out "${_traces}/x.html"
  STDERR "${_dir_regex}/lesson-broken-text\\.json: key 'lesson\\.text': .*17_parameter_server_training\\.toml:[0-9]+:[0-9]+")
expect_bad_input(lesson-trace-storyboard-ranks NO_DUMP ARGS storyboard "${_traces}/l.lesson.json" --ranks 4
  --out "${_traces}/x-board" STDERR "a trace records its own run; --ranks applies to scenarios only")
expect_path_absent("${_traces}/x.csv")
expect_path_absent("${_traces}/x.html")
expect_path_absent("${_traces}/x-board")

# --- 9. bench (tiny: this checks the table, not the speed) -------------------------------------------
run_case(bench-tiny ARGS bench --backend cpu --ranks 3 -b 1K -e 2K --algorithms ring,direct --iters 1 --warmup 0)
expect_exit(0)
expect_output_matches("# memcpy rate: [0-9.]+ GB/s" "# algorithm: ring\n" "# algorithm: direct\n"
  "\n +1024 +256 +f32 +sum +-1 " "\n +2048 +512 +f32 +sum +-1 " "wrong output elements in all: 0 OK")
expect_bad_input(bench-unknown-algorithm NO_DUMP ARGS bench --algorithms ring,rong STDERR "--algorithms" "'rong'")
expect_bad_input(bench-sizes-reversed NO_DUMP ARGS bench -b 2K -e 1K STDERR "-b" "-e")
# --backend cuda: a clear error (exit 2) without a device; where there is one, a tiny table.
run_case(bench-backend-cuda ARGS bench --backend cuda --ranks 2 -b 1K -e 1K --iters 1 --warmup 0)
if(CASE_RC STREQUAL "0")
  expect_output_matches("# device copy ceiling: [0-9.]+ GB/s" "wrong output elements in all: 0 OK")
else()
  expect_exit(2)
  expect_stderr_matches("--backend cuda" "no CUDA device")
endif()
expect_bad_input(bench-timings-bad NO_DUMP ARGS bench --timings maybe STDERR "--timings" "'maybe'")
# --fuse: forwarding chains fused on the CPU backend; the header says so; refused elsewhere.
run_case(bench-fuse ARGS bench --backend cpu --ranks 4 -b 1M -e 1M --iters 1 --warmup 0 --fuse)
expect_exit(0)
expect_output_matches("# --fuse: forwarding chains run fused" "\n +1048576 +262144 +f32 +sum +-1 " "wrong output elements in all: 0 OK")
expect_bad_input(bench-fuse-cuda NO_DUMP ARGS bench --backend cuda --fuse STDERR "--fuse" "CPU backend")

# --- 10. the timing model: predictions, --model-only, topologies, bench --model-only -------------------
run_case(model-only-default ARGS run --model-only)
expect_exit(0)
expect_output_contains("predicted   " "pred. busbw" "bottleneck  rank0 (rank 0 -> switch)"
  "closed form 2(N-1)α + 2(N-1)/N·nβ + (N-1)/N·nγ" "not executed (--model-only); schedule checked symbolically")
expect_stderr_empty()

# Above 1024 ranks a ring whose chunks are equal is predicted from rank 0's transfers (the
# switch looks the same from every rank: sim/model/symmetric_model.h), the same 2.479 ms as
# its closed form; with unequal chunks (a count that 2048 does not divide) step by step.
run_case(model-only-above-1024 TIMEOUT 120 ARGS run --model-only --ranks 2048)
expect_exit(0)
expect_output_contains("on 2048 ranks" "symbolic check skipped above 1024 ranks"
  "predicted from the 4094 transfers rank 0 sends, the rest by symmetry" "8384512 transfers" "predicted   2.479 ms"
  "= 2.479 ms with N = 2048")
run_case(model-only-above-1024-streamed TIMEOUT 120 ARGS run --model-only --ranks 2048 --count 1000000)
expect_exit(0)
expect_output_contains("on 2048 ranks" "predicted step by step" "8384512 transfers")
run_case(model-only-hierarchical-16384 TIMEOUT 120 ARGS run --model-only --ranks 16384 -a hierarchical
  --topology two_level --ranks-per-node 8)
expect_exit(0)
expect_output_contains("67305472 transfers" "predicted from the 32864 transfers ranks 0-7 send, the rest by symmetry")
run_case(model-only-65536-nodes TIMEOUT 120 ARGS run --model-only --ranks 65536 --topology two_level)
expect_exit(0)
expect_output_contains("on 65536 ranks" "8589803520 transfers" "two_level, 65536 ranks"
  "predicted from the 1048560 transfers ranks 0-7 send, the rest by symmetry")

run_case(model-only-quiet ARGS run --model-only -q --ranks 8 --count 64M)
expect_exit(0)
expect_output_matches("^predicted [0-9.]+ (ns|us|ms|s)\n$")

run_case(model-star-parameter-server ARGS run --model-only --topology star --algorithm parameter_server --ranks 4)
expect_exit(0)
expect_output_contains("on star, 5 ranks" "bottleneck  rank4 (server rank 4 -> switch)")

run_case(model-stragglers ARGS run --model-only --late 1=50 --slow 2=3 --link-override rank3=eth10)
expect_exit(0)
expect_output_contains("1 link overridden" "stragglers: rank 1 starts 50 us late, rank 2 computes 3x slower")

# Protocols: auto names its choice and every candidate; an explicit one names itself.
run_case(model-protocol-auto ARGS run --model-only --ranks 8 --count 1K --protocol auto)
expect_exit(0)
expect_output_matches("protocol +LL \\(auto: LL [0-9.]+ (ns|us|µs), LL128 [0-9.]+ (ns|us|µs), Simple [0-9.]+ (ns|us|µs)\\)")
run_case(model-protocol-simple ARGS run --model-only --ranks 8 --count 64M --protocol simple)
expect_exit(0)
expect_output_contains("protocol    Simple\n" "protocol Simple: base 8.4 us" "closed form b + ")

set(_model "${WORK_DIR}/model")
file(MAKE_DIRECTORY "${_model}")
foreach(_copy IN ITEMS a b)
  run_case(model-trace-${_copy} ARGS run --model-only --topology two_level --group-size 2 --ranks 6
    --algorithm rabenseifner --trace "${_model}/${_copy}.json")
  expect_exit(0)
endforeach()
expect_same_content("${_model}/a.json" "${_model}/b.json")  # deterministic: byte-identical predictions
run_case(model-trace-executed ARGS run --ranks 3 --count 100 --trace "${_model}/run.json" --csv "${_model}/run.csv")
expect_exit(0)
set(CASE_LABEL model-trace-content)
if(EXISTS "${_model}/run.json" AND EXISTS "${_model}/run.csv")
  file(READ "${_model}/run.json" _json)
  file(STRINGS "${_model}/run.csv" _header LIMIT_COUNT 1)
  string(JSON _predicted_time GET "${_json}" predicted time_ns)
  if(_json MATCHES "\"predicted_begin_ns\": [0-9]" AND _header MATCHES ",predicted_begin_ns,predicted_end_ns(,operand_buffer,operand_offset)?$"
     AND _predicted_time GREATER 0)
    _ok("run.json and run.csv carry predicted times next to measured ones")
  else()
    _fail("run.json or run.csv lack predicted times")
  endif()
else()
  _fail("run.json or run.csv is missing")
endif()

expect_bad_input(topology-unknown ARGS run --topology torus STDERR "--topology: unknown topology 'torus'")
expect_bad_input(bandwidth-zero ARGS run --bandwidth 0 STDERR "--bandwidth: must be > 0")
expect_bad_input(link-unknown ARGS run --link nvlink9 STDERR "--link: unknown link preset 'nvlink9'")
expect_bad_input(protocol-unknown ARGS run --protocol LL
  STDERR "--protocol: unknown protocol 'LL' \\(use none simple ll ll128 auto\\)")
expect_bad_input(latency-rule-unknown ARGS run --latency-rule hockney
  STDERR "--latency-rule: unknown rule 'hockney' \\(use message or delay\\)")
# --topology-file: a [topology] table replaces the scenario's (but arrange and stragglers);
# flags typed beside it override its keys; its errors name the file, line and key.
set(_topo "${SOURCE_DIR}/tests/cli/topology")
run_case(topology-file ARGS run --model-only --ranks 8 --count 1M --topology-file "${_topo}/cluster.toml")
expect_exit(0)
expect_output_matches("predicted +[0-9.]+ ms on two_level, 8 ranks.*0.0119 GB/s.*9.1 us")
run_case(topology-file-lesson ARGS run --model-only --topology-file "${_topo}/cluster8.toml"
         "${SOURCE_DIR}/scenarios/lessons/15_two_nodes_slow_link.toml")
expect_exit(0)
expect_output_matches("two_level")
# The lesson's text names no NVLink or Ethernet the file does not have.
expect_output_matches("share one in-node switch \\(9.20 GB/s")
expect_output_matches("figures given for the[ \n]+network links")
expect_output_not_matches("NVLink|eth100")
run_case(topology-file-flag-over ARGS run --model-only --ranks 8 --topology-file "${_topo}/cluster.toml" --uplink-bandwidth 0.5)
expect_exit(0)
expect_output_matches("0.5 GB/s")
# A preset typed over the file takes its own figures for those links; the rest stay the file's.
run_case(topology-file-preset-over ARGS run --model-only --ranks 8 --topology-file "${_topo}/cluster.toml" --uplink ib_ndr)
expect_exit(0)
expect_output_matches("rank links [a-z0-9]+ \\(changed\\) \\(8.5 GB/s, 1.8 us given\\), network links per node ib_ndr \\(50 GB/s, 2.7 us")
expect_bad_input(topology-file-missing ARGS run --topology-file "${_topo}/none.toml" STDERR "none.toml")
expect_bad_input(topology-file-typo ARGS run --topology-file "${_topo}/typo.toml"
  STDERR "typo.toml:3:1: .*bandwith")
expect_bad_input(topology-file-scenario ARGS run --topology-file "${_topo}/scenario.toml"
  STDERR "scenario.toml:1:1: .*format")
expect_bad_input(topology-file-lecture ARGS run --topology-file "${SOURCE_DIR}/scenarios/lessons/01_ring_allreduce.toml"
  STDERR "01_ring_allreduce.toml:[0-9]+:[0-9]+: ")
# calibrate outside mpirun, and its flags.
expect_bad_input(calibrate-alone NO_DUMP ARGS calibrate --out "${WORK_DIR}/calibrated.toml"
  STDERR "start it with mpirun -np 2 or more")
if(EXISTS "${WORK_DIR}/calibrated.toml")
  _fail("calibrate alone wrote ${WORK_DIR}/calibrated.toml")
endif()
expect_bad_input(calibrate-max-size NO_DUMP ARGS calibrate --out "${WORK_DIR}/calibrated.toml" --max-size 1K
  STDERR "--max-size: a size from 256K to 256M")
expect_bad_input(calibrate-repeats NO_DUMP ARGS calibrate --out "${WORK_DIR}/calibrated.toml" --repeats 0
  STDERR "--repeats: a whole number from 1 to 1000, got 0")
expect_bad_input(timeout-not-mpi ARGS run --backend cpu --timeout 5 STDERR "--timeout: only --backend mpi waits on other processes")
expect_bad_input(timeout-negative ARGS run --backend mpi --timeout -1 STDERR "--timeout: a number of seconds from 0 to 86400, got '-1'")
expect_bad_input(link-override-unknown-link ARGS run --link-override rank9=10
  STDERR "--link-override rank9=10: no link 'rank9' on switch with 4 ranks")
expect_bad_input(link-override-shape ARGS run --link-override rank1 STDERR "--link-override 'rank1': expected NAME=")
expect_bad_input(late-shape ARGS run --late 3:50 STDERR "--late '3:50': expected RANK=US")
expect_bad_input(late-rank ARGS run --late 9=50 STDERR "--late 9=50: rank 9 is not one of the 4 ranks")
expect_bad_input(slow-zero ARGS run --slow 1=0 STDERR "--slow 1=0: must be > 0")
expect_bad_input(nic-unknown ARGS run --nic rail STDERR "--nic: unknown nic 'rail'")
expect_bad_input(group-size-on-switch ARGS run --group-size 4 STDERR "--group-size: switch has no groups")
expect_bad_input(uplink-on-ring ARGS run --topology ring --uplink eth10 STDERR "--uplink: ring has no uplinks")
expect_bad_input(model-only-dump NO_DUMP ARGS run --model-only --dump "${WORK_DIR}/bad/model-dump"
  STDERR "--dump: a --model-only run has no buffers")
expect_path_absent("${WORK_DIR}/bad/model-dump")
expect_bad_input(model-only-too-many NO_DUMP ARGS run --model-only --ranks 65537 STDERR "--ranks must be between 1 and 65536")
expect_bad_input(model-only-too-many-whole NO_DUMP ARGS run --model-only --ranks 4097 --algorithm binomial_tree
  STDERR "--ranks must be between 1 and 4096 .65536 for an algorithm that streams")
expect_bad_input(model-only-trace-too-large NO_DUMP ARGS run --model-only --ranks 2048 --trace "${_model}/big.json"
  STDERR "--trace: traces are limited to 1024 ranks")
expect_path_absent("${_model}/big.json")

# [topology] in a scenario file: used, overridden by flags, and checked with file:line:column.
file(WRITE "${_model}/star.toml" "format = 1\n[collective]\nalgorithm = \"parameter_server\"\nranks = 4\n"
  "[topology]\nkind = \"star\"\nuplink = \"eth10\"\nstragglers = [{ rank = 1, late = 20.0 }]\n")
run_case(scenario-topology ARGS run --model-only "${_model}/star.toml")
expect_exit(0)
expect_output_contains("server links eth10" "rank 1 starts 20 us late")
run_case(scenario-topology-override ARGS run --model-only "${_model}/star.toml" --uplink eth100 --late 2=5)
expect_exit(0)
expect_output_contains("server links eth100" "rank 2 starts 5 us late")
file(WRITE "${_model}/bad-kind.toml" "format = 1\n[topology]\nkind = \"torus\"\n")
file(WRITE "${_model}/bad-link.toml" "format = 1\n[topology]\noverrides = [{ link = \"rank9\", bandwidth = 1.0 }]\n")
file(WRITE "${_model}/bad-uplink.toml" "format = 1\n[topology]\nkind = \"ring\"\nuplink = \"eth10\"\n")
_regex_escape("${_model}" _model_regex)
expect_bad_input(scenario-topology-kind ARGS run "${_model}/bad-kind.toml"
  STDERR "${_model_regex}/bad-kind\\.toml:3:8: key 'topology\\.kind': unknown topology 'torus'")
expect_bad_input(scenario-topology-link ARGS run "${_model}/bad-link.toml"
  STDERR "${_model_regex}/bad-link\\.toml:3:[0-9]+: key 'topology\\.overrides\\[0\\]\\.link': no link 'rank9'")
expect_bad_input(scenario-topology-uplink ARGS run "${_model}/bad-uplink.toml"
  STDERR "key 'topology\\.uplink': ring has no uplinks")

run_case(bench-model-only ARGS bench --model-only --ranks 8 -b 8 -e 64M -f 8
  --algorithms ring,recursive_doubling,rabenseifner --csv "${_model}/bench.csv" --json "${_model}/bench.json")
expect_exit(0)
expect_output_matches("# algorithm: ring\n" "\n +8 +2 +f32 +sum +-1 +[0-9.]+ "
  "# crossover \\(predicted\\): 8 B - [0-9.]+ [KM]iB: recursive_doubling; [0-9.]+ [KM]iB - 16 MiB: rabenseifner")
set(CASE_LABEL bench-model-only-files)
if(EXISTS "${_model}/bench.csv" AND EXISTS "${_model}/bench.json")
  file(STRINGS "${_model}/bench.csv" _rows)
  list(LENGTH _rows _rows)
  file(READ "${_model}/bench.json" _json)
  string(JSON _points LENGTH "${_json}" rows)
  if(_rows EQUAL 25 AND _points EQUAL 24)  # 3 algorithms x 8 sizes (8 B to 16 MiB), and the CSV's header
    _ok("bench.csv and bench.json hold the 24 points")
  else()
    _fail("bench.csv has ${_rows} lines, bench.json ${_points} rows; 25 and 24 expected")
  endif()
else()
  _fail("bench.csv or bench.json is missing")
endif()
expect_bad_input(bench-json-same-as-csv NO_DUMP ARGS bench --model-only --csv "${_model}/x" --json "${_model}/x"
  STDERR "--json .*: the same file as --csv")

# --- 11. your own algorithm (schedules written by hand), `validate`, `storyboard` -----------------
# A wrong hand-written schedule: exit 1 (like any schedule the checker rejects), the step to
# look at with file:line:column, and the checker's precise words after it.
set(_exercises "${SOURCE_DIR}/scenarios/exercises")
_regex_escape("${_exercises}/ring_allreduce.schedule.toml" _ring_schedule)
run_case(custom-exercise-wrong ARGS run "${_exercises}/ring_allreduce.toml")
expect_exit(1)
expect_stderr_matches("collsim: the schedule is wrong: ${_ring_schedule}:30:3: step 2 \\(reduce-scatter 2/3\\): rank 0 sends chunk 0 to rank 1 to reduce it, but rank 1 already holds rank 0's contribution there"
  "the checker's words: step 2 \\(reduce-scatter 2/3\\), transfer #4")
run_case(custom-exercise-solved ARGS run -q "${_exercises}/ring_allreduce.toml"
  --schedule "${_exercises}/solutions/ring_allreduce.schedule.toml")
expect_exit(0)
expect_output_contains("verified")
run_case(custom-exercise-empty ARGS run "${_exercises}/allgather.toml")
expect_exit(1)
expect_stderr_matches("at the end rank 0's chunk 1 is still empty: it should hold rank 1's data")
# Without a scenario: --schedule alone means --algorithm custom, with the file's collective and ranks.
run_case(custom-flags-only ARGS run -q --schedule "${_exercises}/solutions/allgather.schedule.toml" --count 7)
expect_exit(0)
expect_output_contains("verified")
# A hand-written schedule has no formula in N: said, not "?" (issue 36).
run_case(custom-no-formula ARGS run --model-only --schedule "${_exercises}/solutions/allgather.schedule.toml")
expect_exit(0)
expect_output_matches("schedule    3 steps \\(3 communication; no formula in N \\(a hand-written schedule\\)\\), 12 transfers"
  "bytes sent  min 12 MiB \\(rank 0\\), max 12 MiB \\(rank 3\\); no formula in N \\(a hand-written schedule\\)")
expect_output_not_matches("formula \\?")
# --count 0: the closed form is the textbooks', the run sends nothing and takes 0 ns; both said.
run_case(count-zero ARGS run --model-only --count 0)
expect_exit(0)
expect_output_matches("predicted   0 ns on switch"
  "= 3\\.600 us with N = 4, n = 0 B, .*; a count of 0 sends nothing, so no message pays α and the run takes 0 ns")
# bench --model-only takes up to 4096 ranks, as run --model-only does (it refused above 1024).
run_case(bench-model-only-2048 ARGS bench --model-only -n 2048 -a double_binary_tree -b 1K -e 1K)
expect_exit(0)
expect_output_contains("all_reduce on 2048 ranks, f32 sum; nothing is executed")
# bench of a collective without a ring: its default algorithm when -a is not given.
run_case(bench-default-algorithm ARGS bench -c send_recv --model-only -n 4 -b 1K -e 2K)
expect_exit(0)
expect_output_matches("# algorithm: direct")
run_case(custom-explain ARGS explain --schedule "${_exercises}/solutions/allgather.schedule.toml" --count 2)
expect_exit(0)
expect_output_contains("all_gather with custom on 4 ranks, count 2" "step 3/3: all-gather 3/3")
set(_custom "${WORK_DIR}/custom")
file(WRITE "${_custom}/bad-chunk.toml"
  "schedule_format = 1\ncollective = \"all_reduce\"\nranks = 2\n[[step]]\ntransfers = [ { src = 0, dst = 1, chunk = 5 } ]\n")
_regex_escape("${_custom}/bad-chunk.toml" _bad_chunk)
expect_bad_input(custom-malformed ARGS run --schedule "${_custom}/bad-chunk.toml"
  STDERR "${_bad_chunk}:5:43: key 'step\\[0\\]\\.transfers\\[0\\]\\.chunk': rank 0's output has chunks 0\\.\\.0")
expect_bad_input(custom-ranks-disagree ARGS run --schedule "${_exercises}/solutions/allgather.schedule.toml" --ranks 3
  STDERR "key 'ranks': the schedule is written for ranks = 4, but the run asks for 3 \\(--ranks")
expect_bad_input(custom-schedule-with-other-algorithm ARGS run --algorithm ring
  --schedule "${_exercises}/solutions/allgather.schedule.toml" STDERR "--schedule runs a schedule written by hand")
expect_bad_input(custom-without-schedule ARGS run --algorithm custom STDERR "--algorithm custom needs --schedule FILE")

# validate: every file checked; each bad one named with file:line:column, then how many.
run_case(validate-ok ARGS validate "${SOURCE_DIR}/scenarios/ring_allreduce_4.toml"
  "${_exercises}/solutions/ring_allreduce.schedule.toml" "${_exercises}/solutions/allgather.schedule.toml")
expect_exit(0)
expect_output_matches("ring_allreduce_4\\.toml: OK \\(scenario 'Ring all-reduce on 4 ranks': all_reduce with ring on 4 ranks, 6 steps, checked\\)"
  "ring_allreduce\\.schedule\\.toml: OK \\(schedule: all_reduce on 4 ranks, 6 steps, 24 transfers; checked at count 1048576\\)"
  "allgather\\.schedule\\.toml: OK \\(schedule: all_gather on 4 ranks")
run_case(validate-bad ARGS validate "${SOURCE_DIR}/scenarios/ring_allreduce_4.toml" "${_custom}/bad-chunk.toml"
  "${SOURCE_DIR}/scenarios/parameter_server_4.toml" "${WORK_DIR}/no-such-file.toml")
expect_exit(2)
expect_output_contains("ring_allreduce_4.toml: OK")
expect_output_contains("parameter_server_4.toml: OK")
expect_stderr_matches("${_bad_chunk}:5:43: key")
expect_stderr_matches("no-such-file\\.toml: cannot read")
expect_stderr_matches("2 of 4 files have errors")
run_case(validate-wrong-schedule ARGS validate "${_exercises}/ring_allreduce.toml")
expect_exit(1)
expect_stderr_matches("the schedule is wrong: .*step 2")
# validate: a lecture's keys, every slide's file, phase and comparison.
run_case(validate-lecture ARGS validate "${SOURCE_DIR}/scenarios/lectures/allreduce.lecture.toml")
expect_exit(0)
expect_output_matches("allreduce\\.lecture\\.toml: OK \\(lecture 'All-reduce: the ring and the parameter server': 5 slides, each file checked\\)")
expect_bad_input(validate-lecture-bad-phase NO_DUMP ARGS validate "${SOURCE_DIR}/tests/cli/lectures/bad_compare.lecture.toml"
  STDERR "bad_compare\\.lecture\\.toml:5:1: slide\\[1\\]: compare 'phase:5': not another collective phase of .*phases 1\\.\\.2")
expect_bad_input(validate-lecture-bad-algorithm NO_DUMP ARGS validate "${SOURCE_DIR}/tests/cli/lectures/bad_algorithm.lecture.toml"
  STDERR "compare 'rabenseifner': no such algorithm for broadcast")

# storyboard: one SVG per frame (the start and every step) and an index.html that plays them.
set(_board "${WORK_DIR}/storyboard/ring")
run_case(storyboard-scenario ARGS storyboard "${_ring_scenario}" --count 8 --out "${_board}")
expect_exit(0)
expect_output_contains("storyboard: 7 frames (the start and 6 steps)" "and busbw.svg (busbw against size)")
expect_files_exactly("${_board}" busbw.svg index.html step-00.svg step-01.svg step-02.svg step-03.svg step-04.svg step-05.svg step-06.svg)
set(CASE_LABEL storyboard-content)
if(EXISTS "${_board}/index.html" AND EXISTS "${_board}/step-01.svg")
  file(READ "${_board}/index.html" _index)
  # busbw against size (issue 36): under the player, the run's own size (32 B) marked.
  if(_index MATCHES "<img src=\"busbw\\.svg\"")
    _ok("index.html shows busbw.svg")
  else()
    _fail("index.html does not show busbw.svg")
  endif()
  file(READ "${_board}/busbw.svg" _curve)
  if(_curve MATCHES "<g class=\"mark\">" AND _curve MATCHES "this run: 32 B" AND _curve MATCHES "data-series=\"ring-predicted\"")
    _ok("busbw.svg has the ring's predicted series and the run's size marked")
  else()
    _fail("busbw.svg lacks the ring's series or the mark")
  endif()
  foreach(_k RANGE 0 6)
    if(_index MATCHES "href=\"step-0${_k}\\.svg\"")
      _ok("index.html links step-0${_k}.svg")
    else()
      _fail("index.html does not link step-0${_k}.svg")
    endif()
  endforeach()
  file(READ "${_board}/step-01.svg" _svg)
  string(REGEX MATCHALL "class=\"packet\"" _packets "${_svg}")
  string(REGEX MATCHALL "class=\"cell\"" _cells "${_svg}")
  list(LENGTH _packets _packets)
  list(LENGTH _cells _cells)
  if(_packets EQUAL 4 AND _cells EQUAL 16)
    _ok("step-01.svg: 4 packets (one per transfer), 16 cells (4 ranks x 4 chunks)")
  else()
    _fail("step-01.svg: ${_packets} packets and ${_cells} cells; 4 and 16 expected")
  endif()
else()
  _fail("the storyboard files are missing")
endif()
# From a JSON trace, and from a hand-written schedule.
run_case(storyboard-trace ARGS storyboard "${_traces}/t.json" --out "${WORK_DIR}/storyboard/trace")
expect_exit(0)
expect_output_contains("parameter_server")
run_case(storyboard-custom ARGS storyboard "${_exercises}/ring_allreduce.toml"
  --schedule "${_exercises}/solutions/ring_allreduce.schedule.toml" --out "${WORK_DIR}/storyboard/custom")
expect_exit(0)
expect_output_contains("all_reduce with custom on 4 ranks")
# Bad input: exit 2 and not even the folder; a wrong schedule: exit 1, no folder either.
foreach(_case IN ITEMS malformed-scenario trace-with-flag too-many-ranks)
  set(_out "${WORK_DIR}/storyboard/${_case}")
  if(_case STREQUAL "malformed-scenario")
    expect_bad_input(storyboard-${_case} NO_DUMP ARGS storyboard "${_scenarios}/malformed.toml" --out "${_out}"
      STDERR "malformed\\.toml:3:[0-9]+: not valid TOML")
  elseif(_case STREQUAL "trace-with-flag")
    expect_bad_input(storyboard-${_case} NO_DUMP ARGS storyboard "${_traces}/t.json" --ranks 8 --out "${_out}"
      STDERR "--ranks applies to scenarios only")
  else()
    expect_bad_input(storyboard-${_case} NO_DUMP ARGS storyboard --ranks 65 --count 65 --out "${_out}"
      STDERR "65 ranks are too many to draw")
  endif()
  expect_path_absent("${_out}")
endforeach()
expect_bad_input(storyboard-no-out NO_DUMP ARGS storyboard "${_ring_scenario}" STDERR "collsim storyboard: --out is missing: the folder to write")
run_case(storyboard-wrong-schedule ARGS storyboard "${_exercises}/ring_allreduce.toml" --out "${WORK_DIR}/storyboard/wrong")
expect_exit(1)
expect_path_absent("${WORK_DIR}/storyboard/wrong")

# --- 12. lessons (format 2: phases, captions, questions) ---------------------------------------------
# Small lessons of their own (tests/cli/lessons/), so that these tests do not move when the
# shipped lessons in scenarios/lessons/ are edited.
set(_lessons "${SOURCE_DIR}/tests/cli/lessons")
set(_lesson "${_lessons}/two_phases.toml")

# run: the phase table, per-rank totals and the questions; answers only with --answers.
run_case(golden-lesson-run ARGS run "${_lesson}" --backend cpu --answers)
expect_exit(0)
string(REPLACE "${SOURCE_DIR}/" "<SOURCE_DIR>/" CASE_OUT "${CASE_OUT}")
expect_output_equals_golden(run_lesson_two_phases_answers.txt)
run_case(lesson-run-no-answers ARGS run "${_lesson}" --backend cpu)
expect_exit(0)
expect_output_contains("questions:" "(run with --answers to see the answers)" "verified: every output of 1 distinct collective")
if(CASE_OUT MATCHES "Answer:")
  _fail("the answers are shown without --answers")
else()
  _ok("no answers without --answers")
endif()
run_case(lesson-run-quiet ARGS run "${_lesson}" --backend cpu -q)
expect_exit(0)
expect_output_matches("^verified\n$")
# --ranks applies to every phase, and the answers follow: 8 ranks send 1 float per step.
run_case(lesson-ranks ARGS run "${_lesson}" --ranks 8 --model-only --answers)
expect_exit(0)
expect_output_contains("2 phases on 8 ranks" "Answer: 12 bytes after step 3" "Answer: 14" "not executed (--model-only)")

# A [training] table's buckets, the phases' streams and waits, and the memory they allocate
# are printed, and the Chrome trace has a track for the stream and a memory counter.
set(_training "${_lessons}/training_memory.toml")
run_case(lesson-training-memory ARGS run "${_training}" --backend cpu --chrome "${WORK_DIR}/training.chrome.json")
expect_exit(0)
expect_output_contains("compute 5 µs on side, waits for 1")
expect_output_contains("memory (what the phases allocate and free; peak per rank)")
expect_output_contains("rank 1: 3 MiB at most, from 0.0 µs")
expect_output_contains("DDP buckets, first iteration (1 bucket):")
expect_output_contains("1        4     2.48 MiB  none       layer4.weight .. layer1.weight")
expect_output_contains("DDP buckets, later iterations (2 buckets):")
expect_output_contains("1        3     2.10 MiB  1 MiB      layer4.weight .. layer2.weight")
expect_output_contains("2        1   390.62 KiB  2 MiB      layer1.weight")
set(CASE_LABEL lesson-training-memory-chrome)
if(EXISTS "${WORK_DIR}/training.chrome.json")
  file(READ "${WORK_DIR}/training.chrome.json" _chrome)
  if(_chrome MATCHES "\"name\": *\"stream side\"" AND _chrome MATCHES "\"name\": *\"memory\", *\"ph\": *\"C\"")
    _ok("the Chrome trace has the side stream's track and the memory counter")
  else()
    _fail("the Chrome trace lacks the 'stream side' track or the memory counter")
  endif()
else()
  _fail("no Chrome trace written")
endif()

# The lesson's exports: JSON, Chrome and CSV, all written.
set(_lesson_out "${WORK_DIR}/lesson-out")
file(MAKE_DIRECTORY "${_lesson_out}")
run_case(lesson-traces ARGS run "${_lesson}" --backend cpu --trace "${_lesson_out}/l.json"
  --chrome "${_lesson_out}/l.chrome.json" --csv "${_lesson_out}/l.csv")
expect_exit(0)
expect_files_exactly("${_lesson_out}" l.json l.chrome.json l.csv)

# A flag that changes one collective is refused on a lesson of several phases; nothing is written.
expect_bad_input(lesson-count NO_DUMP ARGS run "${_lesson}" --count 16 --trace "${_lesson_out}/refused.json"
  STDERR "--count changes one collective; .*two_phases\\.toml has 2 phases: edit the phase's `count` in the file")
expect_path_absent("${_lesson_out}/refused.json")
expect_bad_input(lesson-dump ARGS run "${_lesson}" STDERR "--dump writes one collective's buffers")

# explain: each phase's header and caption, and each step's caption under its label.
# Lesson 1's captions follow the rank count: every step's caption names its own stage (the
# reduce-scatter's last addition, the all-gather's copies) at 3 and at 8 ranks (issue 15).
run_case(golden-lesson1-explain-3 ARGS explain "${SOURCE_DIR}/scenarios/lessons/01_ring_allreduce.toml" --ranks 3)
expect_exit(0)
expect_output_equals_golden(explain_lesson01_ranks3.txt)
run_case(golden-lesson1-explain-8 ARGS explain "${SOURCE_DIR}/scenarios/lessons/01_ring_allreduce.toml" --ranks 8)
expect_exit(0)
expect_output_equals_golden(explain_lesson01_ranks8.txt)

run_case(golden-lesson-explain ARGS explain "${_lesson}")
expect_exit(0)
string(REPLACE "${SOURCE_DIR}/" "<SOURCE_DIR>/" CASE_OUT "${CASE_OUT}")
expect_output_equals_golden(explain_lesson_two_phases.txt)
expect_stderr_empty()

# validate: a lesson is prepared and its questions answered; a question about a step the
# collective does not have is refused with the question's file:line:column.
run_case(lesson-validate ARGS validate "${_lesson}")
expect_exit(0)
expect_output_contains("two_phases.toml: OK (lesson 'Two phases': 2 phases (1 collective, 1 compute) on 4 ranks, 3 questions answered, checked)")
_regex_escape("${_lessons}/bad_question.toml" _file_regex)
expect_bad_input(lesson-validate-bad NO_DUMP ARGS validate "${_lesson}" "${_lessons}/bad_question.toml"
  STDERR "${_file_regex}:12:1: question 'What has rank 0 sent after step 9\\?': step 9 does not exist: phase 1 has steps 1\\.\\.6")

# storyboard: a card for the compute phase, one SVG per step of the all-reduce, and an
# index.html that lists the phases.
set(_board "${WORK_DIR}/storyboard/lesson")
run_case(lesson-storyboard ARGS storyboard "${_lesson}" --out "${_board}")
expect_exit(0)
expect_output_contains("storyboard: 7 frames of the lesson's 2 phases (Two phases)")
expect_files_exactly("${_board}" index.html phase-01-compute.svg phase-02-step-01.svg phase-02-step-02.svg
  phase-02-step-03.svg phase-02-step-04.svg phase-02-step-05.svg phase-02-step-06.svg)
set(CASE_LABEL lesson-storyboard-content)
if(EXISTS "${_board}/index.html" AND EXISTS "${_board}/phase-02-step-02.svg")
  file(READ "${_board}/index.html" _index)
  file(READ "${_board}/phase-02-step-02.svg" _svg)
  if(_index MATCHES "<summary>Phases</summary>.*>backward</a> \\(compute\\).*>all-reduce the gradient</a>")
    _ok("index.html lists the phases")
  else()
    _fail("index.html does not list the phases")
  endif()
  # The phase's name, the step and its label, then the file's own step caption (the frame's
  # whole caption, as index.html lists it; the SVG wraps it into lines).
  if(_index MATCHES "caption: \"all-reduce the gradient, step 2/6: [^.\"]*\\. Phase 2/2\\. Step 2/6: rank 0 sends chunk 3 \\(8 B\\) to rank 1\\.\""
     AND _svg MATCHES "all-reduce the gradient, step 2/6")
    _ok("the step's frame shows the phase name and the step caption")
  else()
    _fail("phase-02-step-02.svg lacks the phase name and the expanded step caption")
  endif()
else()
  _fail("the lesson storyboard files are missing")
endif()
# A single-collective file with captions shows them in place of the frames' own descriptions.
run_case(storyboard-captions ARGS storyboard "${SOURCE_DIR}/tests/cli/lessons/one_collective.toml"
  --out "${WORK_DIR}/storyboard/captions")
expect_exit(0)
expect_output_contains("storyboard: 7 frames (the start and 6 steps)")
set(CASE_LABEL storyboard-captions-content)
if(EXISTS "${WORK_DIR}/storyboard/captions/step-01.svg")
  file(READ "${WORK_DIR}/storyboard/captions/step-01.svg" _svg)
  if(_svg MATCHES "Rank 0 sends 8 B to rank 1\\.")
    _ok("step-01.svg shows the file's step caption")
  else()
    _fail("step-01.svg lacks the file's step caption")
  endif()
else()
  _fail("the captioned storyboard is missing")
endif()
# A single-collective file's questions follow today's output of `run`.
run_case(scenario-questions ARGS run "${SOURCE_DIR}/tests/cli/lessons/one_collective.toml" --backend cpu --answers)
expect_exit(0)
expect_output_contains("all_reduce with ring on 4 ranks, count 8" "questions:\n  1. How many bytes does rank 0 send in all?\n     Answer: 48 bytes")

# --- collsim html: the data alone, the live page's refusals (checked before anything runs) ----
set(_html "${WORK_DIR}/html")
file(REMOVE_RECURSE "${_html}")
file(MAKE_DIRECTORY "${_html}")
run_case(html-data ARGS html --ranks 3 --data --out "${_html}/ring.json")
expect_exit(0)
expect_output_contains("page data: all_reduce with ring on 3 ranks")
if(EXISTS "${_html}/ring.json")
  file(READ "${_html}/ring.json" _data LIMIT 4000)
  if(_data MATCHES "^{.*\"format\":\"collsim-page\"")
    _ok("--data writes the page's JSON data")
  else()
    _fail("--data wrote something else than the page's JSON data")
  endif()
else()
  _fail("--data wrote no file")
endif()
run_case(html-live-and-data ARGS html --live --data --out "${_html}/both.json")
expect_exit(2)
expect_stderr_matches("--live and --data: the data alone has no page to make live")
expect_path_absent("${_html}/both.json")
set(ENV{COLLSIM_LIVE_JS} "${_html}/no-such-module.js")
run_case(html-live-missing-module ARGS html --live --out "${_html}/live.html")
unset(ENV{COLLSIM_LIVE_JS})
expect_exit(2)
expect_stderr_matches("--live: the WebAssembly CLI .*no-such-module.js is missing")
expect_path_absent("${_html}/live.html")
run_case(html-trace-topology ARGS html "${_traces}/t.json" --topology ring --out "${_html}/t.html")
expect_exit(2)
expect_stderr_matches("t.json: a trace records its own run and predictions; --topology applies to scenarios only")
expect_path_absent("${_html}/t.html")
run_case(html-lesson-no-ranks ARGS html "${SOURCE_DIR}/scenarios/lessons/01_ring_allreduce.toml" --ranks 0 --out "${_html}/l.html")
expect_exit(2)
expect_stderr_matches("--ranks must be between 1 and 1024 \\(4096 with --model-only, 65536 where the algorithm streams or is predicted from one node\\), got 0")
expect_path_absent("${_html}/l.html")

# --- outputs that never destroy (issue 21): regular files only, links followed, modes kept ---
set(_safe "${WORK_DIR}/safe")
file(REMOVE_RECURSE "${_safe}")
file(MAKE_DIRECTORY "${_safe}")
run_case(output-device ARGS run --ranks 2 --count 4 --trace /dev/null)
expect_exit(2)
expect_stderr_matches("--trace /dev/null: that is a device, not a file: collsim writes regular files only")
execute_process(COMMAND mkfifo "${_safe}/fifo")
run_case(output-fifo ARGS run --ranks 2 --count 4 --csv "${_safe}/fifo")
expect_exit(2)
expect_stderr_matches("--csv .*fifo: that is a FIFO, not a file")
file(WRITE "${_safe}/target.json" "old")
file(CREATE_LINK "target.json" "${_safe}/link.json" SYMBOLIC)
run_case(output-symlink ARGS run --ranks 2 --count 4 --trace "${_safe}/link.json")
expect_exit(0)
if(IS_SYMLINK "${_safe}/link.json")
  _ok("a symlink given as --trace stays a symlink")
else()
  _fail("the symlink link.json was replaced by a file")
endif()
file(READ "${_safe}/target.json" _target LIMIT 40)
if(_target MATCHES "collsim-trace")
  _ok("its target holds the trace")
else()
  _fail("the symlink's target was not written: '${_target}'")
endif()
file(WRITE "${_safe}/private.csv" "old")
file(CHMOD "${_safe}/private.csv" PERMISSIONS OWNER_READ OWNER_WRITE)
run_case(output-mode ARGS run --ranks 2 --count 4 --csv "${_safe}/private.csv")
expect_exit(0)
execute_process(COMMAND stat -c %a "${_safe}/private.csv" OUTPUT_VARIABLE _mode OUTPUT_STRIP_TRAILING_WHITESPACE)
if(_mode STREQUAL "600")
  _ok("an existing file keeps its mode (600)")
else()
  _fail("an existing 600 file became ${_mode}")
endif()
file(WRITE "${_safe}/readonly.json" "keep me")
file(CHMOD "${_safe}/readonly.json" PERMISSIONS OWNER_READ GROUP_READ WORLD_READ)
execute_process(COMMAND id -u OUTPUT_VARIABLE _uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _uid STREQUAL "0")  # root may write anything: access(W_OK) says yes
  run_case(output-readonly ARGS run --ranks 2 --count 4 --trace "${_safe}/readonly.json")
  expect_exit(2)
  expect_stderr_matches("the file is read-only: collsim does not replace it")
endif()
file(READ "${_safe}/readonly.json" _kept)
if(_kept STREQUAL "keep me")
  _ok("a read-only file is left alone")
else()
  _fail("a read-only file was replaced")
endif()
run_case(output-same-file ARGS run --ranks 2 --count 4 --trace "${_safe}/a.json" --chrome "${_safe}/../safe/./a.json")
expect_exit(2)
expect_stderr_matches("--chrome .*a.json: the same file as --trace")
expect_path_absent("${_safe}/a.json")
run_case(output-same-file-link ARGS run --ranks 2 --count 4 --trace "${_safe}/link.json" --csv "${_safe}/target.json")
expect_exit(2)
expect_stderr_matches("the same file as --trace")
# A model-only trace was not executed, and validate says so.
run_case(model-only-trace ARGS run --model-only --ranks 4 --count 4 --trace "${_safe}/model.json")
expect_exit(0)
run_case(validate-model-only ARGS validate "${_safe}/model.json")
expect_exit(0)
expect_output_contains("not executed (--model-only)")
# A number too large for a double: an input error naming the file, not exit 1.
file(WRITE "${_safe}/huge.json" "{\"format\":\"collsim-trace\",\"version\":1e999}")
run_case(trace-number-overflow ARGS validate "${_safe}/huge.json")
expect_exit(2)
expect_stderr_matches("huge\\.json:1:[0-9]+: not a collsim trace: .*number overflow")

run_case(trace-empty-name ARGS run --ranks 2 --trace=)
expect_exit(2)
expect_stderr_matches("--trace (needs a value|: the file name is empty)")

# --- MSCCL algorithm files: export-msccl, --schedule algo.xml, validate (docs/msccl.md) ---------------
set(_msccl "${WORK_DIR}/msccl")
file(MAKE_DIRECTORY "${_msccl}")
set(_msccl_files "${SOURCE_DIR}/tests/msccl")
run_case(msccl-probe ARGS export-msccl --ranks 2)
if(CASE_RC EQUAL 2 AND CASE_ERR MATCHES "cannot read or write MSCCL algorithm files")
  # A build without pugixml: both directions say so, exit 2, nothing written.
  expect_bad_input(msccl-off-run NO_DUMP ARGS run --schedule "${_msccl_files}/ring_allreduce_4.xml"
    STDERR "this build of collsim cannot read or write MSCCL algorithm files: CMake found no pugixml")
  expect_bad_input(msccl-off-export NO_DUMP ARGS export-msccl --out "${_msccl}/x.xml" STDERR "export-msccl: this build")
  expect_path_absent("${_msccl}/x.xml")
else()
  expect_exit(0)
  expect_output_contains("<algo name=\"collsim_ring_2\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"2\" coll=\"allreduce\"")
  # Export, then run the file: the ring's 6 steps and 24 transfers, verified, at any count.
  run_case(msccl-export ARGS export-msccl --ranks 4 --protocol ll128 --nchannels 2 --out "${_msccl}/ring4.xml")
  expect_exit(0)
  # --nchannels 2: every chunk cut in two, one half per channel (the count doubled), a ring
  # thread block per channel on each GPU.
  expect_output_contains("export-msccl: all_reduce with ring on 4 GPUs at count 8 -> ${_msccl}/ring4.xml"
    "8 chunks per loop, 8 thread blocks" "fused receive-and-send" "protocol LL128, 2 channels")
  file(READ "${_msccl}/ring4.xml" _ring4)
  foreach(_want "nchannels=\"2\"" "chan=\"0\"" "chan=\"1\"")
    string(FIND "${_ring4}" "${_want}" _at)
    if(_at EQUAL -1)
      _fail("${_want} is not in ring4.xml")
    endif()
  endforeach()
  # The channels come back: the step table shows each transfer's.
  run_case(msccl-channels-explain ARGS explain --schedule "${_msccl}/ring4.xml" --count 8)
  expect_exit(0)
  expect_output_contains("action           bytes  channel" "reduce_copy          4        1")
  # A count that does not cut into equal pieces: refused with the flag, nothing written.
  expect_bad_input(msccl-export-channels-uneven NO_DUMP ARGS export-msccl --ranks 4 --count 8 --nchannels 3
    --out "${_msccl}/uneven.xml" STDERR "--nchannels 3: transfer 0 .* do not split into 3 equal pieces")
  expect_path_absent("${_msccl}/uneven.xml")
  expect_bad_input(msccl-export-channels-range NO_DUMP ARGS export-msccl --ranks 4 --nchannels 33
    --out "${_msccl}/many.xml" STDERR "--nchannels 33: 1 to 32 channels are possible")
  # Beyond MSCCL's runtime limits: written, with a warning that names the limit.
  run_case(msccl-export-limits ARGS export-msccl -c all_to_all -a direct --ranks 34 --out "${_msccl}/a2a34.xml")
  expect_exit(0)
  expect_stderr_matches("GPU 0 has 33 thread blocks that send on channel 0 \\(34 GPUs have more than 32\\).*MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL")
  run_case(msccl-export-golden ARGS export-msccl --ranks 4 --count 4 --out "${_msccl}/golden.xml")
  expect_exit(0)
  expect_same_content("${_msccl_files}/golden_ring_allreduce_4.xml" "${_msccl}/golden.xml")
  run_case(msccl-run-export ARGS run -q --schedule "${_msccl}/ring4.xml" --count 1001)
  expect_exit(0)
  expect_output_contains("verified")
  run_case(msccl-explain ARGS explain --schedule "${_msccl_files}/chain_broadcast_4.xml" --count 2)
  expect_exit(0)
  expect_output_contains("broadcast with custom on 4 ranks, count 2" "step 4/4")
  # The file's proto is the timing model's protocol unless --protocol says otherwise.
  run_case(msccl-protocol ARGS run --model-only --schedule "${_msccl_files}/chain_broadcast_4.xml" --count 1M)
  expect_exit(0)
  expect_output_contains("protocol LL128: base 14 us")
  run_case(msccl-protocol-flag ARGS run --model-only --schedule "${_msccl_files}/chain_broadcast_4.xml" --count 1M
    --protocol none)
  expect_exit(0)
  if(CASE_OUT MATCHES "LL128")
    _fail("--protocol none did not override the file's LL128")
  else()
    _ok("--protocol none overrides the file's proto")
  endif()
  run_case(msccl-validate ARGS validate "${_msccl_files}/ring_allreduce_4.xml" "${_msccl_files}/alltoall_3.xml")
  expect_exit(0)
  expect_output_contains("ring_allreduce_4.xml: OK (schedule: all_reduce on 4 ranks"
    "alltoall_3.xml: OK (schedule: all_to_all on 3 ranks")
  # A race: warned about on stderr, naming both steps, before the checker's verdict (exit 1).
  _regex_escape("${_msccl_files}/race_allgather_scratch_3.xml" _race)
  run_case(msccl-race ARGS run --schedule "${_msccl_files}/race_allgather_scratch_3.xml" --count 3)
  expect_exit(1)
  expect_stderr_matches("collsim: warning: ${_race}:7:8: race: GPU 0, thread block 0, step 1 writes chunk 0 of GPU 0's scratch, which GPU 0, thread block 1, step 1 \\(line 12\\) reads"
    "collsim: the schedule is wrong: ${_race}:12:8: GPU 0, thread block 1, step 1")
  # Bad input: exit 2, file:line:column, GPU, thread block, step; nothing written.
  file(READ "${_msccl_files}/alltoall_3.xml" _a2a)
  string(REPLACE "type=\"r\"" "type=\"recv\"" _bad_type "${_a2a}")
  file(WRITE "${_msccl}/bad-type.xml" "${_bad_type}")
  _regex_escape("${_msccl}/bad-type.xml" _bad_type_path)
  expect_bad_input(msccl-bad-step-type ARGS run --schedule "${_msccl}/bad-type.xml" --trace "${_msccl}/t.json"
    STDERR "${_bad_type_path}:6:8: GPU 0, thread block 0, step 1: unknown step type 'recv'")
  expect_path_absent("${_msccl}/t.json")
  file(WRITE "${_msccl}/broken.xml" "<algo name=\"x\" ngpus=\"2\">\n  <gpu id=\"0\">\n</algo>\n")
  expect_bad_input(msccl-malformed NO_DUMP ARGS validate "${_msccl}/broken.xml" STDERR "broken.xml:3:3: not well-formed XML")
  expect_bad_input(msccl-export-barrier NO_DUMP ARGS export-msccl --collective barrier --out "${_msccl}/b.xml"
    STDERR "MSCCL has no `coll` for barrier")
  expect_path_absent("${_msccl}/b.xml")
  expect_bad_input(msccl-export-ps NO_DUMP ARGS export-msccl --algorithm parameter_server --out "${_msccl}/ps.xml"
    STDERR "parameter_server runs on 5 ranks for 4 GPUs")
  expect_path_absent("${_msccl}/ps.xml")
  expect_bad_input(msccl-export-protocol NO_DUMP ARGS export-msccl --protocol fast STDERR "--protocol: 'fast' is not one of MSCCL's protocols")
  # The page's own collsim (WebAssembly) has no XML parser: --live is refused, nothing written.
  # A stand-in module (COLLSIM_LIVE_JS), so that a build without the live page (the sanitizer
  # passes) gets this refusal too rather than "built without the live page".
  file(WRITE "${_msccl}/stand-in-live.js" "// not a module: never loaded, the refusal comes first\n")
  set(ENV{COLLSIM_LIVE_JS} "${_msccl}/stand-in-live.js")
  expect_bad_input(msccl-html-live NO_DUMP ARGS html --schedule "${_msccl_files}/alltoall_3.xml" --live
    --out "${_msccl}/live.html" STDERR "--live: .*alltoall_3\\.xml is an MSCCL algorithm file")
  unset(ENV{COLLSIM_LIVE_JS})
  expect_path_absent("${_msccl}/live.html")
  run_case(msccl-html ARGS html --schedule "${_msccl_files}/alltoall_3.xml" --count 6 --out "${_msccl}/page.html")
  expect_exit(0)
  expect_output_contains("page: all_to_all with custom on 3 ranks, 1 steps, 6 transfers")
  run_case(msccl-help ARGS export-msccl --help)
  expect_exit(0)
  expect_output_contains("MSCCL algorithm file" "--protocol" "--nchannels" "--out")
endif()

# --- no temporary files left behind by any run ----------------------------------------------------
file(GLOB_RECURSE _leftovers "${WORK_DIR}/*.tmp-*")
set(CASE_LABEL temporary-files)
set(CASE_KNOWN_BUG "")
if(_leftovers)
  _fail("temporary files left behind: ${_leftovers}")
else()
  _ok("no *.tmp-* files anywhere under ${WORK_DIR}")
endif()

# =============================================================================================
get_property(_checks GLOBAL PROPERTY CLI_CHECKS)
get_property(_failures GLOBAL PROPERTY CLI_FAILURES)
list(LENGTH _failures _failed)
if(_failed GREATER 0)
  list(JOIN _failures "\n  " _list)
  message(FATAL_ERROR "${_failed} of ${_checks} CLI checks failed:\n  ${_list}")
endif()
message(STATUS "all ${_checks} CLI checks passed")
