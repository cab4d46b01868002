#include "tests/support/mechanisms.h"

#include <cmath>

namespace engine::test {

Part box(SceneSpec& spec, const std::string& name, double m, const Vec3& e, const Vec3& position,
         const Quat& R) {
    Part part;
    part.id = spec.newId();
    part.name = name;
    part.mass = m;
    part.I_Pcm_P = (m / 12.0 *
                    Vec3(e.y() * e.y() + e.z() * e.z(), e.x() * e.x() + e.z() * e.z(),
                         e.x() * e.x() + e.y() * e.y()))
                       .asDiagonal();
    part.X_WP = {R, position};
    Shape s;
    s.type = ShapeType::Box;
    s.size = e;
    part.shapes.push_back(s);
    return part;
}

MotionSpec motion(SceneSpec& spec, const std::string& name, const std::string& joint,
                  const std::string& f) {
    MotionSpec m;
    m.id = spec.newId();
    m.name = name;
    m.joint = joint;
    m.expression = f;
    return m;
}

Part groundPart(SceneSpec& spec) {
    Part g;
    g.id = spec.newId();
    g.name = "ground";
    g.ground = true;
    return g;
}

void addMarker(SceneSpec& spec, Part& part, const std::string& name, const Vec3& p,
               const Vec3& zAxis) {
    Marker m;
    m.id = spec.newId();
    m.name = name;
    m.X_PM.p = p;
    m.X_PM.R = Quat::FromTwoVectors(Vec3::UnitZ(), zAxis);
    part.markers.push_back(m);
}

Joint joint(SceneSpec& spec, const std::string& name, JointType type, const std::string& markerI,
            const std::string& markerJ) {
    Joint j;
    j.id = spec.newId();
    j.name = name;
    j.type = type;
    const auto split = [](const std::string& ref) {
        const auto dot = ref.find('.');
        return MarkerRef{ref.substr(0, dot), ref.substr(dot + 1)};
    };
    j.markerI = split(markerI);
    j.markerJ = split(markerJ);
    return j;
}

SceneSpec chain(int links, IntegratorType integrator, double stepSize) {
    SceneSpec spec;
    spec.name = "chain-" + std::to_string(links);
    spec.settings.integrator = integrator;
    spec.settings.stepSize = stepSize;
    Part ground = groundPart(spec);
    addMarker(spec, ground, "j0", Vec3::Zero(), Vec3::UnitY());
    spec.parts.push_back(ground);
    for (int k = 0; k < links; ++k) {
        Part link = box(spec, "link" + std::to_string(k), 1.0, Vec3(0.1, 0.02, 0.02),
                        Vec3(0.1 * k + 0.05, 0, 0));
        addMarker(spec, link, "a", Vec3(-0.05, 0, 0), Vec3::UnitY());
        addMarker(spec, link, "b", Vec3(0.05, 0, 0), Vec3::UnitY());
        spec.parts.push_back(link);
        spec.joints.push_back(joint(spec, "j" + std::to_string(k), JointType::Revolute,
                                    "link" + std::to_string(k) + ".a",
                                    k == 0 ? "ground.j0" : "link" + std::to_string(k - 1) + ".b"));
    }
    return spec;
}

SceneSpec fourBar(IntegratorType integrator, double stepSize) {
    SceneSpec spec;
    spec.name = "fourbar";
    spec.settings.integrator = integrator;
    spec.settings.stepSize = stepSize;
    const Vec3 A(0, 0, 0), D(0.4, 0, 0);
    const Vec3 B(0.1 * std::cos(kPi / 4), 0, 0.1 * std::sin(kPi / 4));
    // C: |C − B| = 0.4, |C − D| = 0.3, upper branch.
    const Vec3 BD = D - B;
    const double d = BD.norm();
    const double a = (0.16 - 0.09 + d * d) / (2 * d);
    const double h = std::sqrt(0.16 - a * a);
    const Vec3 e = BD / d;
    const Vec3 n(-e.z(), 0, e.x());  // e turned +90° in the x-z plane (towards +z)
    const Vec3 C = B + a * e + h * n;

    Part ground = groundPart(spec);
    addMarker(spec, ground, "A", A, Vec3::UnitY());
    addMarker(spec, ground, "D", D, Vec3::UnitY());
    spec.parts.push_back(ground);
    auto link = [&](const std::string& name, const Vec3& P, const Vec3& Q, const std::string& mp,
                    const std::string& mq) {
        const Vec3 u = Q - P;
        const double L = u.norm();
        const Quat R = Quat::FromTwoVectors(Vec3::UnitX(), u / L);
        Part part = box(spec, name, 1.0, Vec3(L, 0.02, 0.02), 0.5 * (P + Q), R);
        addMarker(spec, part, mp, Vec3(-0.5 * L, 0, 0), R.conjugate() * Vec3::UnitY());
        addMarker(spec, part, mq, Vec3(0.5 * L, 0, 0), R.conjugate() * Vec3::UnitY());
        spec.parts.push_back(part);
    };
    link("crank", A, B, "A", "B");
    link("coupler", B, C, "B", "C");
    link("rocker", D, C, "D", "C");
    spec.joints.push_back(joint(spec, "A", JointType::Revolute, "crank.A", "ground.A"));
    spec.joints.push_back(joint(spec, "B", JointType::Revolute, "coupler.B", "crank.B"));
    spec.joints.push_back(joint(spec, "C", JointType::Revolute, "rocker.C", "coupler.C"));
    spec.joints.push_back(joint(spec, "D", JointType::Revolute, "rocker.D", "ground.D"));
    return spec;
}

SceneSpec flywheel(double inertia) {
    SceneSpec spec;
    spec.gravity = Vec3::Zero();
    Part ground = groundPart(spec);
    addMarker(spec, ground, "axle", Vec3::Zero());
    spec.parts.push_back(ground);
    Part wheel = box(spec, "wheel", 2.0, Vec3(0.2, 0.2, 0.02), Vec3::Zero());
    wheel.I_Pcm_P = Vec3::Constant(inertia).asDiagonal();
    addMarker(spec, wheel, "hub", Vec3::Zero());
    spec.parts.push_back(wheel);
    spec.joints.push_back(joint(spec, "axle", JointType::Revolute, "wheel.hub", "ground.axle"));
    return spec;
}

SceneSpec blockOnBushing(double k, IntegratorType integrator, double stepSize) {
    SceneSpec spec;
    spec.settings.integrator = integrator;
    spec.settings.stepSize = stepSize;
    Part ground = groundPart(spec);
    addMarker(spec, ground, "mount", Vec3::Zero());
    spec.parts.push_back(ground);
    Part block = box(spec, "block", 1.0, Vec3(0.05, 0.05, 0.05), Vec3::Zero());
    addMarker(spec, block, "mount", Vec3::Zero());
    spec.parts.push_back(block);
    ForceSpec bushing;
    bushing.id = spec.newId();
    bushing.name = "mount";
    bushing.type = ForceType::Bushing;
    bushing.markerI = {"block", "mount"};
    bushing.markerJ = {"ground", "mount"};
    bushing.translationalStiffness = Vec3::Constant(k);
    bushing.rotationalStiffness = Vec3::Constant(k * 1e-3);
    spec.forces.push_back(bushing);
    return spec;
}

}  // namespace engine::test
