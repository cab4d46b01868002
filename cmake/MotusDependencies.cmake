# Every dependency comes from a Debian package (tools/setup-deps.sh installs them).

find_package(Threads REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(muparser 2.3 REQUIRED)
find_package(CLI11 2.1 REQUIRED)
find_package(assimp 5.2 REQUIRED)  # mesh files (OBJ, STL, ...)
# URDF robot descriptions; Debian installs urdfdom's CMake package outside the default path.
find_package(urdfdom REQUIRED PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/urdfdom/cmake)
# urdfdom reports why it refuses a file through console_bridge: the importer listens.
find_package(console_bridge REQUIRED
    PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/console_bridge/cmake)
# MJCF robot descriptions, read by MuJoCo's own compiler (libmujoco-dev). Debian's CMake
# package names an include folder it does not install (libqhull_r), so the library and its
# header are found directly.
find_path(MUJOCO_INCLUDE_DIR mujoco/mujoco.h REQUIRED)
find_library(MUJOCO_LIBRARY mujoco REQUIRED)
if(NOT TARGET motus::mujoco)
    add_library(motus::mujoco UNKNOWN IMPORTED)
    set_target_properties(motus::mujoco PROPERTIES
        IMPORTED_LOCATION "${MUJOCO_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES "${MUJOCO_INCLUDE_DIR}")
endif()
# SDF models and worlds (Gazebo's format), read through libsdformat.
find_package(sdformat12 REQUIRED)
# CAD assemblies (STEP) through OpenCASCADE (Debian's libocct-*-dev; its targets name TBB's
# libraries, libtbb-dev). Headers by OpenCASCADE_INCLUDE_DIR: its targets carry none.
find_package(OpenCASCADE REQUIRED)

# Bullet, double precision, collision detection only (cmake/FindBulletDouble.cmake says why
# this is not CMake's FindBullet).
find_package(BulletDouble REQUIRED)

if(MOTUS_BUILD_GUI)
    find_package(Qt6 6.4 REQUIRED COMPONENTS Widgets OpenGL OpenGLWidgets Charts Svg)
    find_package(OpenGL REQUIRED)
    # OpenSceneGraph ships no CMake targets; wrap the FindOpenSceneGraph results in one.
    find_package(OpenSceneGraph 3.6 REQUIRED COMPONENTS osgViewer osgGA osgDB osgUtil osgText)
    add_library(motus::osg INTERFACE IMPORTED)
    target_include_directories(motus::osg SYSTEM INTERFACE ${OPENSCENEGRAPH_INCLUDE_DIRS})
    target_link_libraries(motus::osg INTERFACE ${OPENSCENEGRAPH_LIBRARIES} OpenGL::GL)
    # FFmpeg's libraries encode the video export (ui/render/video_encoder.cpp).
    find_package(PkgConfig REQUIRED)
    pkg_check_modules(LIBAV REQUIRED IMPORTED_TARGET
        libavcodec>=59 libavformat>=59 libswscale>=6 libavutil>=57)
endif()

# The Python module: Debian's Python 3 (whose python3-numpy the tests use), pybind11.
if(MOTUS_BUILD_PYTHON)
    if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
        set(Python3_EXECUTABLE /usr/bin/python3)
    endif()
    find_package(Python3 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
    find_package(pybind11 2.6 CONFIG REQUIRED)
endif()

if(MOTUS_BUILD_TESTS)
    find_package(GTest 1.12 REQUIRED)
    if(MOTUS_BUILD_GUI)
        find_package(Qt6 6.4 REQUIRED COMPONENTS Test)
    endif()
endif()
if(MOTUS_BUILD_BENCHMARKS)
    find_package(benchmark 1.7 REQUIRED)
endif()
