// A drag event in the GUI, end to end: the pointer moves on a ring of the manipulator, the
// engine's drag assembly finds the chain's new pose and the 3D view redraws it. A drag keeps up
// with the pointer when this takes less than a frame (33 ms at 30 fps). And the 3D view's scene
// for thousands of parts. Runs under Xvfb (tools/with-display.sh), software OpenGL.
//
//   tools/with-display.sh build/release/bin/motus_ui_bench

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <set>

#include <QApplication>
#include <QMouseEvent>
#include <QStandardPaths>
#include <QTest>
#include <QTreeView>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/LOD>
#include <osg/MatrixTransform>

#include "tests/support/contact_scenes.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/manipulation.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/models/scene_tree.h"
#include "ui/viewport/scene_graph.h"
#include "ui/viewport/viewport_widget.h"

namespace {

// chain_100 (101 parts) open, its 50th link selected, the rotate ring about y pressed.
struct DragSetup {
    ui::MainWindow window;
    ui::ViewportWidget* view = nullptr;
    std::vector<QPoint> ring;
    bool ready = false;

    explicit DragSetup(const char* scene) {
        window.resize(1100, 720);
        window.show();
        if (!QTest::qWaitForWindowExposed(&window) ||
            !window.files()->openScene(QString::fromUtf8(scene)))
            return;
        view = window.viewport();
        const engine::EntityId link = window.scene()->parts[50].id;
        QTreeView* tree = window.sceneTree();
        const QModelIndexList rows = tree->model()->match(
            tree->model()->index(0, 0), ui::kEntityIdRole, QVariant::fromValue(quint64(link)), 1,
            Qt::MatchExactly | Qt::MatchRecursive);
        if (rows.isEmpty()) return;
        tree->selectionModel()->select(
            rows.front(), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        window.manipulation()->setSnapping(false);
        window.manipulation()->setMode(ui::GizmoMode::Rotate);
        view->repaint();
        QTest::qWait(50);
        const ui::GizmoHandle handle{ui::GizmoMode::Rotate, 1};
        for (int k = 0; k <= 40; ++k)
            ring.push_back(view->gizmoHandlePoint(handle, 0.125 + k / 720.0).toPoint());
        QTest::mousePress(view, Qt::LeftButton, {}, ring.front());
        ready = view->gizmoDragging();
    }
};

// Made at the first run, gone before the application is (a window outliving QApplication crashes).
std::unique_ptr<DragSetup> chain100;

void BM_DragEventChain100(benchmark::State& state) {
    if (!chain100)
        chain100 = std::make_unique<DragSetup>(MOTUS_SOURCE_DIR "/scenes/chain_100.json");
    DragSetup& setup = *chain100;
    if (!setup.ready) {
        state.SkipWithError("chain_100 could not be set up for a drag");
        return;
    }
    std::size_t k = 1;
    int step = 1;
    double assembly = 0.0;
    long events = 0;
    for (auto _ : state) {
        // Back and forth along an arc of 20°, half a degree per event.
        if (k == 0 || k + 1 == setup.ring.size()) step = -step;
        k += step;
        const QPointF p(setup.ring[k]);
        QMouseEvent move(QEvent::MouseMove, p, setup.view->mapToGlobal(p), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(setup.view, &move);
        setup.view->repaint();  // paintGL now: the frame the user sees
        assembly += setup.window.manipulation()->figures().lastEventSeconds;
        ++events;
    }
    state.counters["assembly_ms"] = events ? 1e3 * assembly / events : 0.0;
    state.counters["worst_gap_m"] = setup.window.manipulation()->figures().worstGap;
    state.counters["held"] = setup.window.manipulation()->figures().held;
}
BENCHMARK(BM_DragEventChain100)->Unit(benchmark::kMillisecond);

// The 3D view's scene for a scatter of many parts (four shapes, as BM_ContactScatter drops them):
// what opening such a scene costs the view, the drawables made (alike shapes share one) and the
// triangles of the parts drawn finely and drawn coarsely (round parts small on screen).
void BM_SceneGraphScatter(benchmark::State& state) {
    const engine::SceneSpec spec = engine::test::scatter(static_cast<int>(state.range(0)));
    std::size_t drawables = 0, fine = 0, coarse = 0;
    for (auto _ : state) {
        const ui::SceneGraph graph = ui::buildSceneGraph(spec);
        benchmark::DoNotOptimize(graph.root.get());
        state.PauseTiming();
        // Each distinct drawable below the parts once; its triangles for every part drawing it.
        std::set<const osg::Drawable*> seen;
        fine = coarse = 0;
        const auto triangles = [](const osg::Drawable* d) {
            const osg::Geometry* g = d->asGeometry();
            std::size_t n = 0;
            for (unsigned k = 0; g && k < g->getNumPrimitiveSets(); ++k) {
                const osg::PrimitiveSet* set = g->getPrimitiveSet(k);
                n += set->getMode() == GL_TRIANGLES ? set->getNumIndices() / 3
                     : set->getMode() == GL_TRIANGLE_STRIP || set->getMode() == GL_QUAD_STRIP
                         ? set->getNumIndices() - 2
                         : 0;
            }
            return n;
        };
        for (std::size_t p = 0; p < graph.partTransforms.size(); ++p) {
            const osg::Geode& near = *graph.partShapes[p];
            const osg::Geode* far = &near;
            const osg::MatrixTransform& part = *graph.partTransforms[p];
            for (unsigned k = 0; k < part.getNumChildren(); ++k)
                if (const auto* lod = dynamic_cast<const osg::LOD*>(part.getChild(k)))
                    far = lod->getChild(0)->asGeode();
            for (unsigned k = 0; k < near.getNumDrawables(); ++k) {
                seen.insert(near.getDrawable(k));
                fine += triangles(near.getDrawable(k));
            }
            for (unsigned k = 0; far && k < far->getNumDrawables(); ++k) {
                seen.insert(far->getDrawable(k));
                coarse += triangles(far->getDrawable(k));
            }
        }
        drawables = seen.size();
        state.ResumeTiming();
    }
    state.counters["parts"] = static_cast<double>(spec.parts.size());
    state.counters["drawables"] = static_cast<double>(drawables);
    state.counters["triangles_fine"] = static_cast<double>(fine);
    state.counters["triangles_coarse"] = static_cast<double>(coarse);
}
BENCHMARK(BM_SceneGraphScatter)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
    ui::ViewportWidget::configureDefaultSurfaceFormat();
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Motus"));
    QApplication::setApplicationName(QStringLiteral("motus-ui-bench"));
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    chain100.reset();
    return 0;
}
