// Design variables in the window as a user meets them: a scene that has some opens with the
// Design Variables panel, one slider per variable; moving it changes every bound field (the
// crank's length, mass, pin) in one undo step per drag, and the mechanism stays assembled; a
// value that makes the scene invalid is refused with the field and the reason; fields are bound
// and unbound there; and the study table runs the cases and gives the same summary as
// motus-cli batch on the same cases, plotting the peak pin force against the crank length.

#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QSlider>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "engine/io/design_variables.h"
#include "tests/ui/support/window_test.h"
#include "ui/document/scene_document.h"
#include "ui/mainwindow/design_variables_panel.h"
#include "ui/mainwindow/study_dialog.h"
#include "ui/properties/properties_panel.h"

namespace ui {
namespace {

const QString kStudy = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/slider_crank_study.json");
const QString kCases = QStringLiteral(MOTUS_SOURCE_DIR "/scenes/slider_crank_study.cases.csv");

class DesignVariablesWindow : public test::WindowTest {
protected:
    DesignVariablesPanel* panel() const { return window.designVariables(); }
    const engine::Part& crank() const { return scene().parts[1]; }
};

TEST_F(DesignVariablesWindow, ASceneWithDesignVariablesShowsTheirSliders) {
    openWindow(kStudy);
    auto* dock = window.findChild<QDockWidget*>(QStringLiteral("DesignVariablesDock"));
    ASSERT_TRUE(dock);
    EXPECT_TRUE(dock->isVisible());
    ASSERT_EQ(panel()->variableCount(), 1);
    EXPECT_DOUBLE_EQ(panel()->valueBox(0)->value(), 0.05);
    // 0.05 in [0.02, 0.09]: three sevenths along.
    EXPECT_EQ(panel()->slider(0)->value(), 429);
    EXPECT_EQ(panel()->boundFieldCount(), 11);
}

TEST_F(DesignVariablesWindow, TheSliderChangesEveryBoundFieldInOneUndoStep) {
    openWindow(kStudy);
    const int undoBefore = window.undoStack()->count();
    QSlider* slider = panel()->slider(0);
    ASSERT_TRUE(slider);
    // A drag: several values, one undo step.
    // Step 600 of 1000 over [0.02, 0.09]: 0.062.
    for (int step : {450, 520, 600}) slider->setValue(step);
    EXPECT_NEAR(scene().designVariables[0].value, 0.062, 1e-15);
    EXPECT_NEAR(crank().mass, 0.248, 1e-15);
    EXPECT_NEAR(crank().shapes[0].size.x(), 0.062, 1e-15);
    EXPECT_NEAR(crank().markers[1].X_PM.p.x(), 0.031, 1e-15);
    EXPECT_NEAR(scene().parts[3].X_WP.p.x(), 0.262, 1e-15);  // the slider's place
    EXPECT_EQ(window.undoStack()->count(), undoBefore + 1);
    // Assembled as it stands: the model compiles and the bound places close the loop.
    ASSERT_TRUE(window.document()->compiled().model);
    EXPECT_EQ(engine::io::boundFields(scene()).size(), 11u) << "a binding was lost";
    window.undoStack()->undo();
    EXPECT_NEAR(crank().mass, 0.2, 1e-12);
    EXPECT_NEAR(panel()->valueBox(0)->value(), 0.05, 1e-12);
}

TEST_F(DesignVariablesWindow, AValueThatMakesTheSceneInvalidIsRefusedWithItsField) {
    openWindow(kStudy);
    QString problem;
    EXPECT_FALSE(panel()->setValue(QStringLiteral("L_crank"), -0.01, &problem));
    EXPECT_TRUE(problem.contains(QStringLiteral("/parts/1/mass"))) << problem.toStdString();
    EXPECT_TRUE(panel()->status().contains(QStringLiteral("refused")))
        << panel()->status().toStdString();
    EXPECT_DOUBLE_EQ(scene().designVariables[0].value, 0.05);
    EXPECT_DOUBLE_EQ(panel()->valueBox(0)->value(), 0.05);
}

TEST_F(DesignVariablesWindow, FieldsAreBoundAndUnboundFromThePanel) {
    openWindow(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/pendulum.json"));
    ASSERT_EQ(panel()->variableCount(), 0);
    QString problem;
    EXPECT_FALSE(panel()->addVariable(QStringLiteral("2L"), 1.0, &problem));
    EXPECT_TRUE(problem.contains(QStringLiteral("not valid"))) << problem.toStdString();
    ASSERT_TRUE(panel()->addVariable(QStringLiteral("m"), 2.5, &problem)) << problem.toStdString();
    ASSERT_EQ(panel()->variableCount(), 1);
    ASSERT_TRUE(panel()->bind(QStringLiteral("/parts/1/mass"), QStringLiteral("2*m"), &problem))
        << problem.toStdString();
    EXPECT_DOUBLE_EQ(scene().parts[1].mass, 5.0);
    EXPECT_EQ(panel()->boundFieldCount(), 1);
    EXPECT_FALSE(panel()->bind(QStringLiteral("/parts/1/mass"), QStringLiteral("2*mm"), &problem));
    EXPECT_TRUE(problem.contains(QStringLiteral("mm"))) << problem.toStdString();
    ASSERT_TRUE(panel()->setValue(QStringLiteral("m"), 1.5));
    EXPECT_DOUBLE_EQ(scene().parts[1].mass, 3.0);
    ASSERT_TRUE(panel()->unbind(QStringLiteral("/parts/1/mass")));
    EXPECT_EQ(panel()->boundFieldCount(), 0);
    ASSERT_TRUE(panel()->setValue(QStringLiteral("m"), 4.0));
    EXPECT_DOUBLE_EQ(scene().parts[1].mass, 3.0);  // free now
}

// Renaming a design variable reaches its bound fields and the expressions that read it.
TEST_F(DesignVariablesWindow, RenamingAVariableReachesItsFieldsAndExpressions) {
    openWindow(QStringLiteral(MOTUS_SOURCE_DIR "/scenes/dc_motor_crank.json"));
    ASSERT_EQ(panel()->variableCount(), 2);
    QString problem;
    ASSERT_TRUE(panel()->bind(QStringLiteral("/parts/1/mass"), QStringLiteral("T0/3"), &problem))
        << problem.toStdString();
    EXPECT_FALSE(panel()->renameVariable(QStringLiteral("T0"), QStringLiteral("w0"), &problem));
    EXPECT_TRUE(problem.contains(QStringLiteral("already"))) << problem.toStdString();
    ASSERT_TRUE(
        panel()->renameVariable(QStringLiteral("T0"), QStringLiteral("stallTorque"), &problem))
        << problem.toStdString();
    EXPECT_EQ(scene().designVariables[0].name, "stallTorque");
    EXPECT_EQ(scene().forces[0].components[0], "stallTorque*(1 - w/w0)");
    ASSERT_TRUE(engine::io::boundFieldAt(scene(), "/parts/1/mass"));
    EXPECT_EQ(engine::io::boundFieldAt(scene(), "/parts/1/mass")->expression, "stallTorque/3");
    ASSERT_TRUE(window.document()->compiled().model);
    window.undoStack()->undo();
    EXPECT_EQ(scene().forces[0].components[0], "T0*(1 - w/w0)");
}

// Properties tints the numbers bound to design variables and shows their expression; a number
// typed there replaces the binding.
TEST_F(DesignVariablesWindow, PropertiesShowsTheBoundNumbersAndATypedNumberUnbindsThem) {
    openWindow(kStudy);
    PropertiesPanel* properties = window.properties();
    properties->showEntity(window.scene(), crank().id);
    auto* mass = qobject_cast<QLineEdit*>(properties->editorForKey(QStringLiteral("mass")));
    ASSERT_TRUE(mass);
    EXPECT_TRUE(mass->toolTip().startsWith(QStringLiteral("= 4*L_crank")))
        << mass->toolTip().toStdString();
    EXPECT_FALSE(mass->styleSheet().isEmpty());
    auto* y = qobject_cast<QLineEdit*>(properties->editorForKey(QStringLiteral("position"), 1));
    ASSERT_TRUE(y);
    EXPECT_TRUE(y->styleSheet().isEmpty());  // the y of the position is a number
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) {
        window.findChild<QDockWidget*>(QStringLiteral("PropertiesDock"))->raise();
        QTest::qWait(100);
        window.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/bound_properties.png");
    }
    mass->setText(QStringLiteral("0.3"));
    properties->commit(QStringLiteral("Mass"));
    EXPECT_DOUBLE_EQ(crank().mass, 0.3);
    EXPECT_EQ(panel()->boundFieldCount(), 10);
    mass = qobject_cast<QLineEdit*>(properties->editorForKey(QStringLiteral("mass")));
    ASSERT_TRUE(mass);
    EXPECT_TRUE(mass->styleSheet().isEmpty());
    // L changes the rest, not the mass typed in.
    ASSERT_TRUE(panel()->setValue(QStringLiteral("L_crank"), 0.06));
    EXPECT_DOUBLE_EQ(crank().mass, 0.3);
    EXPECT_DOUBLE_EQ(crank().shapes[0].size.x(), 0.06);
}

// The study in the window and motus-cli batch on the same cases: the same summary.
TEST_F(DesignVariablesWindow, AStudyGivesTheSummaryOfMotusCliBatch) {
    openWindow(kStudy);
    StudyDialog* study = panel()->study();
    study->prepare();
    QList<QPair<QString, QStringList>> cases;
    QFile file(kCases);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split(u'\n', Qt::SkipEmptyParts);
    for (int k = 1; k < lines.size(); ++k) {
        const QStringList fields = lines[k].split(u',');
        cases.append({fields[0], {fields[1]}});
    }
    study->setCases(cases);
    study->setAnalysis(QStringLiteral("simulate"), 1.0);
    study->setResult(QStringLiteral("crankPin.|F|"), QStringLiteral("peak"),
                     QStringLiteral("L_crank"));
    study->show();
    QSignalSpy finished(study, &StudyDialog::studyFinished);
    ASSERT_TRUE(study->run()) << study->status().toStdString();
    ASSERT_TRUE(finished.wait(120000)) << study->status().toStdString();
    EXPECT_TRUE(finished.front().front().toBool()) << study->status().toStdString();
    EXPECT_EQ(study->summaryTable()->rowCount(), 6);
    EXPECT_EQ(study->plottedPoints(), 6);

    // motus-cli batch on the file, the same cases.
    QTemporaryDir out;
    QProcess cli;
    cli.start(QStringLiteral(MOTUS_CLI_PATH),
              {QStringLiteral("batch"), kStudy, QStringLiteral("--cases"), kCases,
               QStringLiteral("--out-dir"), out.path(), QStringLiteral("--duration"),
               QStringLiteral("1"), QStringLiteral("--summarize"), QStringLiteral("crankPin.|F|")});
    ASSERT_TRUE(cli.waitForFinished(120000));
    ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
    QFile summary(out.filePath(QStringLiteral("summary.csv")));
    ASSERT_TRUE(summary.open(QIODevice::ReadOnly));
    // Every column but the files' places.
    auto withoutFiles = [](const QString& text) {
        QStringList rows;
        for (const QString& line : text.split(u'\n', Qt::SkipEmptyParts)) {
            QStringList fields = line.split(u',');
            fields.removeAt(4);
            rows << fields.join(u',');
        }
        return rows;
    };
    const QStringList gui = withoutFiles(study->summary());
    const QStringList cliRows = withoutFiles(QString::fromUtf8(summary.readAll()));
    EXPECT_EQ(gui, cliRows);
    ASSERT_EQ(gui.size(), 7);
    EXPECT_TRUE(gui[0].startsWith(QStringLiteral("case,L_crank,status,exit,min(crankPin.|F|)")))
        << gui[0].toStdString();
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) {
        QTest::qWait(300);  // the chart lays its axes out in the event loop
        study->grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/study.png");
        window.grab().save(qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/design_variables.png");
    }
}

}  // namespace
}  // namespace ui
