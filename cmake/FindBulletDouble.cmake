# FindBulletDouble: Bullet's collision detection in double precision, as Debian ships it.
#
# Debian's BulletConfig.cmake has broken relative paths, and CMake's FindBullet module finds
# the single-precision libraries. Debian also ships -float64 builds; they must be used with
# BT_USE_DOUBLE_PRECISION defined (mixing the define and the library kind is an ABI mismatch),
# so both are carried by one imported target:
#
#   BulletDouble::Collision   BulletCollision-float64 + LinearMath-float64, include dir,
#                             BT_USE_DOUBLE_PRECISION
#   BulletDouble::Dynamics    BulletDynamics-float64 on top: Bullet's own rigid-body world, for the
#                             benchmarks that run Motus's scenes in Bullet beside Motus (never the
#                             engine: Motus uses Bullet for collision detection only)
find_path(BulletDouble_INCLUDE_DIR btBulletCollisionCommon.h PATH_SUFFIXES bullet)
find_library(BulletDouble_COLLISION_LIBRARY BulletCollision-float64)
find_library(BulletDouble_LINEARMATH_LIBRARY LinearMath-float64)
find_library(BulletDouble_DYNAMICS_LIBRARY BulletDynamics-float64)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(BulletDouble
    REQUIRED_VARS BulletDouble_COLLISION_LIBRARY BulletDouble_LINEARMATH_LIBRARY BulletDouble_INCLUDE_DIR)

if(BulletDouble_FOUND AND NOT TARGET BulletDouble::Collision)
    add_library(BulletDouble::Collision INTERFACE IMPORTED)
    target_include_directories(BulletDouble::Collision SYSTEM INTERFACE ${BulletDouble_INCLUDE_DIR})
    target_compile_definitions(BulletDouble::Collision INTERFACE BT_USE_DOUBLE_PRECISION)
    target_link_libraries(BulletDouble::Collision INTERFACE
        ${BulletDouble_COLLISION_LIBRARY} ${BulletDouble_LINEARMATH_LIBRARY})
endif()
if(BulletDouble_FOUND AND BulletDouble_DYNAMICS_LIBRARY AND NOT TARGET BulletDouble::Dynamics)
    add_library(BulletDouble::Dynamics INTERFACE IMPORTED)
    target_link_libraries(BulletDouble::Dynamics INTERFACE
        ${BulletDouble_DYNAMICS_LIBRARY} BulletDouble::Collision)
endif()
mark_as_advanced(BulletDouble_INCLUDE_DIR BulletDouble_COLLISION_LIBRARY BulletDouble_LINEARMATH_LIBRARY
    BulletDouble_DYNAMICS_LIBRARY)
