# Every dependency comes from a Debian package (tools/setup-deps.sh installs them).

find_package(Threads REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(muparser 2.3 REQUIRED)
find_package(CLI11 2.1 REQUIRED)

# Bullet, double precision, collision detection only. Debian's BulletConfig.cmake has broken
# relative paths and CMake's FindBullet gives the float libraries, so locate the -float64
# builds directly. The define and the libraries must match (ABI): both live in this target.
find_path(MOTUS_BULLET_INCLUDE_DIR btBulletCollisionCommon.h PATH_SUFFIXES bullet REQUIRED)
find_library(MOTUS_BULLET_COLLISION_LIBRARY BulletCollision-float64 REQUIRED)
find_library(MOTUS_BULLET_LINEARMATH_LIBRARY LinearMath-float64 REQUIRED)
add_library(motus::bullet INTERFACE IMPORTED)
target_include_directories(motus::bullet SYSTEM INTERFACE ${MOTUS_BULLET_INCLUDE_DIR})
target_compile_definitions(motus::bullet INTERFACE BT_USE_DOUBLE_PRECISION)
target_link_libraries(motus::bullet INTERFACE
    ${MOTUS_BULLET_COLLISION_LIBRARY} ${MOTUS_BULLET_LINEARMATH_LIBRARY})

if(MOTUS_BUILD_GUI)
    find_package(Qt6 6.4 REQUIRED COMPONENTS Widgets OpenGL OpenGLWidgets Charts)
    find_package(OpenGL REQUIRED)
    # OpenSceneGraph ships no CMake targets; wrap the FindOpenSceneGraph results in one.
    find_package(OpenSceneGraph 3.6 REQUIRED COMPONENTS osgViewer osgGA osgDB osgUtil osgText)
    add_library(motus::osg INTERFACE IMPORTED)
    target_include_directories(motus::osg SYSTEM INTERFACE ${OPENSCENEGRAPH_INCLUDE_DIRS})
    target_link_libraries(motus::osg INTERFACE ${OPENSCENEGRAPH_LIBRARIES} OpenGL::GL)
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
