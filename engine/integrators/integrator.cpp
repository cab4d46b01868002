#include "engine/integrators/integrator.h"

#include "engine/dynamics/joint_space.h"
#include "engine/integrators/detail.h"

namespace engine {

// The methods, one a file: symplectic_euler.cpp, runge_kutta.cpp (rk4), dormand_prince.cpp
// (dopri45), implicit_euler.cpp, time_stepping.cpp; what the fixed-step ones share in
// fixed_step.cpp, the check of motions that jump in motion_jumps.cpp, projection onto the
// constraints in engine/dynamics/projection.cpp.
FormulationChoice chooseFormulation(const Model& model) {
    const SolverSettings& settings = model.settings;
    FormulationChoice choice;
    if (settings.formulation == Formulation::Maximal) {
        choice.reason = "the scene asks for maximal coordinates";
        return choice;
    }
    const bool asked = settings.formulation == Formulation::Recursive;
    auto maximal = [&](std::string why) {
        choice.reason = std::move(why);
        choice.refused = asked;
        return choice;
    };
    if (model.kinematic) {  // (nothing to integrate: whatever was asked)
        choice.reason = "a fully driven mechanism is solved from its constraints at each instant";
        return choice;
    }
    if (settings.integrator == IntegratorType::ImplicitEuler ||
        settings.integrator == IntegratorType::Trapezoidal)
        return maximal(std::string(integratorName(settings.integrator)) +
                       " steps in maximal coordinates only (the recursive formulation steps "
                       "with symplecticEuler, rk4, dopri45 and timeStepping)");
    std::string why;
    const std::optional<JointTree> tree = buildJointTree(model, initialState(model), why);
    if (!tree) return maximal(why);
    if (tree->size() == 0) return maximal("the mechanism has no parts to step");
    const std::size_t cuts = tree->cuts.size();
    const int free = tree->freeParts(), frames = tree->movingFrames(),
              links = tree->size() - free - frames;
    auto count = [](int k, const char* one, const char* many) {
        return std::to_string(k) + " " + (k == 1 ? one : many);
    };
    std::string roots = count(free, "free part", "free parts");
    if (frames > 0)
        roots = free > 0 ? roots + " and " + count(frames, "moving frame", "moving frames")
                         : count(frames, "moving frame", "moving frames");
    std::string size =
        links > 0 ? "a tree of " + count(links, "joint", "joints") +
                        (free + frames > 0 ? " on " + roots : std::string(" from the ground"))
                  : roots;
    if (cuts > 0)
        size += " and " + count(static_cast<int>(cuts), "joint", "joints") + " closing its loops";
    // Auto takes joint coordinates where they give the same answer faster. Measured, they are
    // faster on every tree under timeStepping (chain-1 to chain-32 on a floor 1.5–2.3×, the
    // canonical robots 1.2–6×, performance.md) and about twice as fast with the smooth
    // integrators, but they do not give the same answer at the same settings, so auto keeps
    // maximal coordinates:
    //  * projecting each step onto the joints removes part of its error, which joint
    //    coordinates keep (the IFToMM pendulum A01 at dopri45's default tolerance ends 6.1e-5 m
    //    from the exact motion, against 2.5e-4 m in joint coordinates; a 4-link chain at rk4,
    //    1 ms: 1.6e-7 m against 8.7e-7 m);
    //  * the semi-implicit Euler of joint coordinates, with a mass matrix that depends on q,
    //    is not symplectic, and its velocity products are explicit: a double pendulum's energy
    //    drifted by 5 % of what it exchanges in 10 s, and chain-16 whipping from horizontal
    //    under timeStepping at 10 ms gains 35 J of the 126 J it releases, where maximal
    //    coordinates (SHAKE–RATTLE; the velocity-level rows at the step's end) gain under 1 %.
    // docs/engine.md, Formulations. (A closed loop no longer takes that speed away: the
    // four-bar's symplectic step takes half the maximal one's, its rk4 and dopri45 runs about
    // 0.8 of theirs, performance.md.)
    if (!asked) {
        const bool stepping = settings.integrator == IntegratorType::TimeStepping;
        return maximal(
            "auto keeps maximal coordinates, which follow the motion more closely at the same "
            "settings" +
            std::string(stepping ? " (joint coordinates gain energy where links whip)" : "") +
            "; \"recursive\" steps this mechanism (" + size + ") in joint coordinates, " +
            (cuts > 0     ? "1.2 to 2 times as fast, its loops' rows held with multipliers"
             : links == 0 ? "no faster: a free part's coordinates are its pose"
             : stepping   ? "1.5 to 6 times as fast"
                          : "about twice as fast"));
    }
    choice.formulation = Formulation::Recursive;
    choice.reason =
        size + (cuts == 0 ? (links > 0    ? ": its joints' coordinates hold it by construction"
                             : frames > 0 ? ": each part's pose, the frames' given"
                                          : ": each part's position and unit quaternion")
                          : ": its tree's coordinates, its loops' rows held with "
                            "multipliers");
    return choice;
}

std::unique_ptr<Integrator> makeIntegrator(const SolverSettings& settings,
                                           Formulation formulation) {
    const bool joints = formulation == Formulation::Recursive;
    switch (settings.integrator) {
    case IntegratorType::SymplecticEuler:
        return detail::makeSymplecticEuler(settings.stepSize, joints);
    case IntegratorType::RungeKutta4:
        return detail::makeRungeKutta4(settings.stepSize, joints);
    case IntegratorType::DormandPrince45:
        return detail::makeDormandPrince45(settings.maxStep, settings.relativeTolerance,
                                           settings.absoluteTolerance, joints);
    case IntegratorType::ImplicitEuler:
        return detail::makeImplicitEuler(settings.stepSize);
    case IntegratorType::Trapezoidal:
        return detail::makeTrapezoidal(settings.stepSize);
    case IntegratorType::TimeStepping:
        return detail::makeTimeStepping(settings.stepSize, joints);
    }
    return nullptr;
}

}  // namespace engine
