# ci/shaderc-pch.cmake: precompiled headers for SPIRV-Tools' two libraries in shaderc's tree, as
# ci/cmake-shaderc.sh has CI's build of shaderc include this file (CMAKE_PROJECT_INCLUDE). Each of
# the optimizer's 118 files parses ir_context.h and what it pulls in before its own code, and each
# of the validator's 47 validation_state.h: most of their compile time (results/half-the-time-21/).
# glslang precompiles its headers itself (ENABLE_PCH). The code compiled is the same; only the
# headers' parse is shared.
include_guard(GLOBAL)

function(perftest_shaderc_pch)
    if(TARGET SPIRV-Tools-opt)
        target_precompile_headers(SPIRV-Tools-opt PRIVATE
            <source/opt/ir_context.h> <source/opt/pass.h> <source/opt/ir_builder.h>
            <algorithm> <functional> <memory> <string> <unordered_map> <unordered_set> <vector>)
    endif()
    if(TARGET SPIRV-Tools-static)
        target_precompile_headers(SPIRV-Tools-static PRIVATE
            <source/val/validation_state.h> <source/val/validate.h> <source/val/instruction.h>
            <source/opcode.h> <algorithm> <string> <vector>)
    endif()
endfunction()

# The libraries are defined in subdirectories after the first project() call, where this file is
# included: the call runs when the top directory has been read.
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL perftest_shaderc_pch)
