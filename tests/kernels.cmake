# Tests of kernels/. Included from tests/CMakeLists.txt, after find_package(doctest) and
# enable_testing(); paths are relative to this file so it works from any including dir.
if(NOT COMMAND doctest_discover_tests)
  include(doctest)
endif()

add_executable(test_kernels ${CMAKE_CURRENT_LIST_DIR}/test_kernels.cpp)
target_link_libraries(test_kernels PRIVATE collsim_kernels doctest::doctest)
# Whether the library was built with nvcc: the test checks cuda::built_with_cuda() against it.
if(COLLSIM_WITH_CUDA)
  target_compile_definitions(test_kernels PRIVATE COLLSIM_HAVE_CUDA=1)
endif()
doctest_discover_tests(test_kernels TEST_PREFIX "kernels: ")

# Compares the CUDA kernels with the host loops; exits 77 (reported as skipped) when there
# is no CUDA device, or when collsim was built without CUDA.
add_executable(test_gpu_kernels ${CMAKE_CURRENT_LIST_DIR}/test_gpu_kernels.cpp)
target_link_libraries(test_gpu_kernels PRIVATE collsim_kernels)
add_test(NAME gpu_kernels COMMAND test_gpu_kernels)
set_tests_properties(gpu_kernels PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)
