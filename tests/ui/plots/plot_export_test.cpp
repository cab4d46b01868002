// Plots fit for a report: nice tick values, exports at a chosen size and resolution with a
// title and no cursor, SVG with one path per curve, a PDF report of every plot, clicking in a
// plot to move the time, x-y plots (a coupler curve) and plots side by side.

#include <cmath>
#include <cstdio>

#include <QChartView>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

#include <gtest/gtest.h>

#include "engine/record/recording.h"
#include "engine/runtime/simulator.h"
#include "ui/mainwindow/export_actions.h"
#include "ui/mainwindow/file_actions.h"
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/messages_panel.h"
#include "ui/mainwindow/scene_tree_panel.h"
#include "ui/plots/plot_render.h"
#include "ui/plots/plot_widget.h"
#include "ui/plots/plots_panel.h"
#include "ui/session/simulation_session.h"

namespace ui {
namespace {

const QString kFourBar = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/four_bar.json");

bool waitForTime(SimulationSession* session, double time, double tolerance = 1e-9) {
    return QTest::qWaitFor(
        [&] {
            const auto snap = session->snapshot();
            return snap && snap->mode == engine::RunMode::Paused &&
                   std::abs(snap->time - time) < tolerance;
        },
        30000);
}

// A step is nice when it is 1, 2, 2.5 or 5 times a power of ten.
bool isNice(double step) {
    if (!(step > 0.0)) return false;
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-12));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (std::abs(mantissa - m) < 1e-9) return true;
    return false;
}

TEST(PlotTicks, StepsAreOneTwoTwoAndAHalfOrFiveTimesAPowerOfTen) {
    EXPECT_DOUBLE_EQ(niceTickStep(3.11, 4), 1.0);  // 0, 1, 2, 3 instead of 0, 0.7775, …
    EXPECT_DOUBLE_EQ(niceTickStep(0.3, 6), 0.05);  // 0, 0.05, …, 0.3
    EXPECT_DOUBLE_EQ(niceTickStep(0.3, 4), 0.1);
    EXPECT_DOUBLE_EQ(niceTickStep(1000.0, 5), 200.0);
    EXPECT_DOUBLE_EQ(niceTickStep(10.0, 4), 2.5);
    EXPECT_DOUBLE_EQ(niceTickStep(7e-6, 7), 1e-6);
    EXPECT_EQ(niceTickStep(0.0, 5), 0.0);
    EXPECT_EQ(niceTickStep(std::nan(""), 5), 0.0);
    for (double span = 1e-4; span < 1e5; span *= 1.37)
        for (int n : {2, 5, 8}) {
            const double step = niceTickStep(span, n);
            EXPECT_TRUE(isNice(step)) << span << " " << n;
            EXPECT_LE(span / step, n + 1e-9) << span << " " << n;
            EXPECT_GT(span / step, n / 2.5 - 1e-9) << span << " " << n;  // not needlessly few
        }
    EXPECT_EQ(tickDecimals(0.25), 2);
    EXPECT_EQ(tickDecimals(0.05), 2);
    EXPECT_EQ(tickDecimals(2.5), 1);
    EXPECT_EQ(tickDecimals(200.0), 0);
    EXPECT_EQ(tickText(-1e-17, 2), "0.00");  // never "-0.00"
    EXPECT_EQ(tickText(0.75, 2), "0.75");
    EXPECT_EQ(tickText(-250.0, 0), "-250");
}

class PlotExportTest : public ::testing::Test {
protected:
    void SetUp() override {
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        ASSERT_TRUE(window.files()->openScene(kFourBar));
        window.session()->runTo(0.5);
        ASSERT_TRUE(waitForTime(window.session(), 0.5));
        plot = window.sceneTree()->plotReactionForce("pivotA");
        ASSERT_NE(plot, nullptr);
        ASSERT_TRUE(dir.isValid());
        // MOTUS_KEEP_TEST_FILES=1 keeps the exports to look at.
        if (qEnvironmentVariableIsSet("MOTUS_KEEP_TEST_FILES")) {
            dir.setAutoRemove(false);
            std::printf("exports in %s\n", qPrintable(dir.path()));
        }
    }
    MainWindow window;
    PlotWidget* plot = nullptr;
    QTemporaryDir dir;
};

TEST_F(PlotExportTest, OnScreenTicksAreNiceAndThePlotIsTallEnoughToRead) {
    QTest::qWait(150);  // a refresh
    EXPECT_TRUE(isNice(plot->tickInterval(false))) << plot->tickInterval(false);
    EXPECT_TRUE(isNice(plot->tickInterval(true))) << plot->tickInterval(true);
    // A few ticks over each axis' range (Qt Charts lays out every tick as an item: the
    // interval is set for a new range before the range, never the other way round).
    for (QAbstractAxis* axis : plot->chart()->axes()) {
        const auto* value = qobject_cast<QValueAxis*>(axis);
        ASSERT_NE(value, nullptr);
        const bool vertical = value->orientation() == Qt::Vertical;
        EXPECT_LE((value->max() - value->min()) / plot->tickInterval(vertical), 10.0 + 1e-9);
        EXPECT_GE((value->max() - value->min()) / plot->tickInterval(vertical), 2.0 - 1e-9);
    }
    EXPECT_GE(plot->height(), 200);
    EXPECT_GE(plot->chart()->plotArea().height(), 90.0);
}

TEST_F(PlotExportTest, PngHasTheChosenSizeResolutionAndTitleAndNoCursor) {
    const QString png = dir.filePath("reaction.png");
    PlotExportOptions options;
    options.pixels = QSize(1000, 600);
    options.dpi = 192;
    QString error;
    ASSERT_TRUE(plot->exportImage(png, options, "Pivot A reaction", &error)) << error.toStdString();
    const QImage image(png);
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.size(), QSize(1000, 600));
    EXPECT_NEAR(image.dotsPerMeterX() * 0.0254, 192.0, 0.5);
    // The title: dark text centred in a band at the top, above everything else.
    const auto darkIn = [&](int y0, int y1, int& left, int& right) {
        int n = 0;
        left = image.width();
        right = -1;
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < image.width(); ++x)
                if (qGray(image.pixel(x, y)) < 100) {
                    ++n;
                    left = std::min(left, x);
                    right = std::max(right, x);
                }
        return n;
    };
    const int band = static_cast<int>(std::lround((10 + 22) * 2.0));  // pad + title at 2×
    int left = 0, right = 0;
    EXPECT_GT(darkIn(0, band, left, right), 200);
    EXPECT_NEAR(0.5 * (left + right), 500, 25);
    // Without a title the band holds the legend instead: no dark text centred there.
    PlotPicture untitled = plot->picture(QString());
    for (PlotCurve& c : untitled.curves) c.name.clear();
    const QString bare = dir.filePath("bare.png");
    ASSERT_TRUE(exportPlot(untitled, bare, options, &error)) << error.toStdString();
    const QImage bareImage(bare);
    int darkBare = 0;
    for (int y = 0; y < band / 2; ++y)
        for (int x = bareImage.width() / 3; x < 2 * bareImage.width() / 3; ++x)
            if (qGray(bareImage.pixel(x, y)) < 100) ++darkBare;
    EXPECT_EQ(darkBare, 0);
    // No cursor: what is drawn is the four curves, nothing else.
    const PlotPicture picture = plot->picture("t");
    EXPECT_EQ(picture.curves.size(), 4u);
    EXPECT_NEAR(picture.xMin, 0.0, 1e-12);
    EXPECT_GE(picture.xMax, 0.5);

    // A bad request names the reason and leaves no file.
    options.pixels = QSize(10, 10);
    EXPECT_FALSE(plot->exportImage(dir.filePath("tiny.png"), options, "x", &error));
    EXPECT_TRUE(error.contains("pixels")) << error.toStdString();
    EXPECT_FALSE(QFile::exists(dir.filePath("tiny.png")));
    options.pixels = QSize(800, 600);
    EXPECT_FALSE(plot->exportImage(dir.filePath("plot.bmp"), options, "x", &error));
    EXPECT_TRUE(error.contains(".bmp")) << error.toStdString();
}

TEST_F(PlotExportTest, SvgHasOnePathPerCurve) {
    const QString svg = dir.filePath("reaction.svg");
    QString error;
    ASSERT_TRUE(plot->exportImage(svg, {}, "Pivot A reaction", &error)) << error.toStdString();
    QFile file(svg);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    EXPECT_LT(text.size(), 150000);  // 4 curves of 501 points each, not thousands of pieces
    EXPECT_TRUE(text.contains("Pivot A reaction"));
    // Each curve: one <path> in a group stroked in its colour.
    const PlotPicture picture = plot->picture("t");
    for (const PlotCurve& curve : picture.curves) {
        const QString colour = curve.colour.name();
        const QRegularExpression group(
            QStringLiteral("<g [^>]*stroke=\"%1\"[^>]*>\\s*<path ").arg(colour));
        EXPECT_EQ(text.count(group), 1) << curve.name.toStdString() << " " << colour.toStdString();
    }
    const QRegularExpression anyPath(QStringLiteral("<path "));
    EXPECT_LE(text.count(anyPath), 4 + 2);  // the curves, and at most the frame and grid
}

TEST_F(PlotExportTest, PdfReportHasEveryPlotTwoToAPage) {
    window.plots()->addPlot({"energy.kinetic", "energy.potential"}, "Energy");
    window.plots()->addPlot({"coupler.z"}, "Coupler curve", "coupler.x");
    const QString pdf = dir.filePath("report.pdf");
    QString error;
    ASSERT_TRUE(window.exports()->exportPlotsReport(pdf, &error)) << error.toStdString();
    QFile file(pdf);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    EXPECT_TRUE(bytes.startsWith("%PDF"));
    const QRegularExpression page(QStringLiteral("/Type\\s*/Page[^s]"));
    EXPECT_EQ(QString::fromLatin1(bytes).count(page), 2);  // three plots, two to a page
    // A single plot as PDF: one page.
    ASSERT_TRUE(plot->exportImage(dir.filePath("one.pdf"), {}, "Pivot A", &error));
    QFile one(dir.filePath("one.pdf"));
    ASSERT_TRUE(one.open(QIODevice::ReadOnly));
    EXPECT_EQ(QString::fromLatin1(one.readAll()).count(page), 1);
}

TEST_F(PlotExportTest, ClickingInAPlotMovesTheTimeThere) {
    QTest::qWait(150);
    auto* view = plot->findChild<QChartView*>();
    ASSERT_NE(view, nullptr);
    QChart* chart = plot->chart();
    const QPointF inChart = chart->mapToPosition(QPointF(0.25, 0.0), chart->series().last());
    const QPoint at = view->mapFromScene(chart->mapToScene(inChart));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    const engine::Recording* recording = window.session()->recording();
    const double frameTime = recording->time(1) - recording->time(0);
    // The pixel under the click is a few thousandths of a second wide.
    EXPECT_TRUE(waitForTime(window.session(), 0.25, 0.01)) << window.session()->snapshot()->time;
    const double shown = window.session()->snapshot()->time;
    // A recorded frame's time exactly, the nearest to the click.
    EXPECT_NEAR(std::fmod(shown + 1e-9, frameTime), 0.0, 2e-9);
    // Dragging keeps moving it.
    const QPointF later = chart->mapToPosition(QPointF(0.4, 0.0), chart->series().last());
    QTest::mousePress(view->viewport(), Qt::LeftButton, {}, at);
    QMouseEvent move(QEvent::MouseMove, view->mapFromScene(chart->mapToScene(later)),
                     view->viewport()->mapToGlobal(view->mapFromScene(chart->mapToScene(later))),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view->viewport(), &move);
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, {},
                        view->mapFromScene(chart->mapToScene(later)));
    EXPECT_TRUE(waitForTime(window.session(), 0.4, 0.01)) << window.session()->snapshot()->time;
}

// The coupler point traced against its own x: the curve is (x(t), y(t)) of the recording,
// and the cursor is the point where the coupler is at the shown time.
TEST_F(PlotExportTest, AnXyPlotTracesTheCouplerCurve) {
    PlotWidget* xy = window.plots()->addPlot({"coupler.z"}, QString(), "coupler.x");
    EXPECT_EQ(xy->title(), "coupler z vs x");
    const engine::Recording* recording = window.session()->recording();
    const auto& layout = recording->layout();
    std::vector<double> t, x, y;  // the four-bar moves in the x-z plane
    recording->series(layout.findChannel("coupler.x"), 0, recording->size(), 1, t, x);
    recording->series(layout.findChannel("coupler.z"), 0, recording->size(), 1, t, y);
    ASSERT_EQ(xy->pointCount(0), static_cast<int>(x.size()));
    const PlotPicture picture = xy->picture("coupler curve");
    ASSERT_EQ(picture.curves.size(), 1u);
    const QList<QPointF>& points = picture.curves[0].points;
    for (std::size_t k = 0; k < x.size(); k += 50) {
        EXPECT_EQ(points[static_cast<qsizetype>(k)].x(), x[k]);
        EXPECT_EQ(points[static_cast<qsizetype>(k)].y(), y[k]);
    }
    EXPECT_TRUE(picture.xLabel.startsWith("coupler.x [m]"));
    EXPECT_LE(picture.xMin, *std::min_element(x.begin(), x.end()));
    EXPECT_GE(picture.xMax, *std::max_element(x.begin(), x.end()));
    // A click near a point of the curve shows the time the coupler was there.
    QTest::qWait(150);
    auto* view = xy->findChild<QChartView*>();
    ASSERT_NE(view, nullptr);
    const std::size_t k = 200;  // t = 0.2 s
    QChart* chart = xy->chart();
    const QPointF inChart = chart->mapToPosition(QPointF(x[k], y[k]), chart->series().last());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {},
                      view->mapFromScene(chart->mapToScene(inChart)));
    // The coupler curve of a four-bar passes near itself only at its crossing: the click
    // finds t = 0.2 s or a time the point is under the same pixel.
    ASSERT_TRUE(QTest::qWaitFor([&] { return window.session()->snapshot()->frame != 500; }, 5000));
    const std::size_t shown = window.session()->snapshot()->frame;
    EXPECT_LT(std::hypot(x[shown] - x[k], y[shown] - y[k]),
              2.0 * (picture.xMax - picture.xMin) / view->width());
}

TEST_F(PlotExportTest, PlotsSideBySideShowEveryPlotAtOnce) {
    window.plots()->addPlot({"energy.kinetic"}, "Energy");
    window.plots()->addPlot({"coupler.z"}, "Coupler curve", "coupler.x");
    PlotsPanel* panel = window.plots();
    panel->setSideBySide(true);
    QTest::qWait(100);
    int shown = 0;
    for (int k = 0; k < panel->plotCount(); ++k) shown += panel->plot(k)->isVisible() ? 1 : 0;
    EXPECT_EQ(shown, 3);
    // Two to a row: the first two share a row, the third is below them.
    const QPoint a = panel->plot(0)->mapTo(panel, QPoint()),
                 b = panel->plot(1)->mapTo(panel, QPoint()),
                 c = panel->plot(2)->mapTo(panel, QPoint());
    EXPECT_EQ(a.y(), b.y());
    EXPECT_LT(a.x(), b.x());
    EXPECT_GT(c.y(), a.y());
    EXPECT_EQ(panel->plot(1)->chart()->title(), "Energy");  // each plot titled in the grid
    panel->setSideBySide(false);
    QTest::qWait(50);
    shown = 0;
    for (int k = 0; k < panel->plotCount(); ++k) shown += panel->plot(k)->isVisible() ? 1 : 0;
    EXPECT_EQ(shown, 1);  // tabs: one at a time
    EXPECT_EQ(panel->plots().size(), 3u);
}

}  // namespace
}  // namespace ui

namespace ui {
namespace {

// A plot naming a channel the run does not record opened empty without a word: the plot now
// says which, with the close names the run has, and so does the message when a scene's plot
// names one.
TEST_F(PlotExportTest, APlotOfChannelsTheRunDoesNotRecordSaysWhichAndTheCloseNames) {
    PlotWidget* typo = window.plots()->addPlot({"copler.x", "pivotA.Fz"});
    ASSERT_NE(typo, nullptr);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !typo->missingChannels().isEmpty(); }, 3000));
    const QString said = typo->missingChannels();
    EXPECT_TRUE(
        said.startsWith("Plot 'copler.x, pivotA.Fz' names a channel this run does not "
                        "record: 'copler.x' (close: 'coupler.x'"))
        << said.toStdString();
    EXPECT_FALSE(said.contains("'pivotA.Fz' ("));  // recorded: not named
    auto* line = typo->findChild<QLabel*>("PlotMissingChannels");
    ASSERT_NE(line, nullptr);
    EXPECT_TRUE(line->isVisible());
    EXPECT_GT(typo->pointCount(1), 0);  // the channel it has is drawn
    // A plot of recorded channels says nothing.
    EXPECT_TRUE(plot->missingChannels().isEmpty());
    EXPECT_FALSE(plot->findChild<QLabel*>("PlotMissingChannels")->isVisible());

    // A scene's plot: the message names the channel and the close names.
    QFile source(kFourBar);
    ASSERT_TRUE(source.open(QIODevice::ReadOnly));
    QJsonObject scene = QJsonDocument::fromJson(source.readAll()).object();
    QJsonObject entry;
    entry.insert("name", "crank angle");
    entry.insert("channels", QJsonArray{"crank.vx", "Crank.wy", "nothing.at.all"});
    scene.insert("plots", QJsonArray{entry});
    const QString path = dir.filePath("typo_plot.json");
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(scene).toJson());
    file.close();
    const int before = window.messages()->count();
    ASSERT_TRUE(window.files()->openScene(path));
    QString message;
    for (int k = before; k < window.messages()->count(); ++k)
        if (window.messages()->item(k)->text().contains("does not record"))
            message = window.messages()->item(k)->text();
    EXPECT_TRUE(
        message.contains("Plot 'crank angle' names channels this run does not record: "
                         "'Crank.wy' (close: 'crank.wy'"))
        << message.toStdString();
    EXPECT_TRUE(message.contains("'nothing.at.all' (no close name)")) << message.toStdString();
    EXPECT_FALSE(message.contains("'crank.vx' (")) << message.toStdString();
}

}  // namespace
}  // namespace ui
