#include "ui/properties/expression_editor.h"

#include <cmath>

#include <QAbstractItemView>
#include <QChart>
#include <QChartView>
#include <QCompleter>
#include <QDoubleSpinBox>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QRegularExpression>
#include <QScreen>
#include <QSignalSpy>
#include <QTest>
#include <QVBoxLayout>
#include <QValueAxis>

#include <gtest/gtest.h>

#include "engine/math/constants.h"

namespace ui {
namespace {

using engine::kPi;
constexpr double kDeg = kPi / 180.0;

// The editor in a dock-wide window, beside another field to move the focus to.
class ExpressionEditorTest : public ::testing::Test {
protected:
    void SetUp() override {
        auto* layout = new QVBoxLayout(&window);
        editor = new ExpressionEditor;
        other = new QLineEdit;
        layout->addWidget(editor);
        layout->addWidget(other);
        window.setFixedWidth(330);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    }

    // Replaces the field's text by typing `text` into it.
    void type(const QString& text) {
        editor->lineEdit()->selectAll();
        QTest::keyClicks(editor->lineEdit(), text);
    }
    QLineSeries* curve(int k) const {
        auto* view = editor->findChild<QChartView*>(QStringLiteral("ExpressionPreview"));
        return static_cast<QLineSeries*>(view->chart()->series().at(k));
    }
    QLabel* messageLabel() const {
        return editor->findChild<QLabel*>(QStringLiteral("ExpressionMessage"));
    }
    // The time named in the message ("... at t = 1.01 s"), NaN when there is none.
    double timeInMessage() const {
        static const QRegularExpression named(QStringLiteral("t = ([-0-9.e]+) s"));
        const QRegularExpressionMatch m = named.match(editor->message());
        return m.hasMatch() ? m.captured(1).toDouble() : std::nan("");
    }

    QWidget window;
    ExpressionEditor* editor = nullptr;
    QLineEdit* other = nullptr;
};

TEST_F(ExpressionEditorTest, TypedSineIsValidAndItsPreviewIsTheFunctionAndItsDerivative) {
    editor->setUnit(QStringLiteral("rad"));
    type(QStringLiteral("30d*sin(2*pi*time)"));
    EXPECT_TRUE(editor->isValid()) << editor->error().toStdString();
    EXPECT_TRUE(editor->error().isEmpty());

    const auto& t = editor->previewTimes();
    const auto& value = editor->previewValues();
    const auto& rate = editor->previewDerivatives();
    ASSERT_EQ(t.size(), std::size_t(ExpressionEditor::kSamples));
    ASSERT_EQ(value.size(), t.size());
    ASSERT_EQ(rate.size(), t.size());
    EXPECT_EQ(t.front(), 0.0);
    EXPECT_EQ(t.back(), 2.0);
    for (std::size_t k = 0; k < t.size(); ++k) {
        EXPECT_NEAR(value[k], 30 * kDeg * std::sin(2 * kPi * t[k]), 1e-9) << "t = " << t[k];
        EXPECT_NEAR(rate[k], 30 * kDeg * 2 * kPi * std::cos(2 * kPi * t[k]), 1e-6)
            << "t = " << t[k];
    }

    // The display follows after the debounce: the value at t = 0 with its unit, no red, and
    // both curves over the whole range.
    ASSERT_TRUE(
        QTest::qWaitFor([&] { return curve(0)->count() == ExpressionEditor::kSamples; }, 2000));
    EXPECT_EQ(curve(1)->count(), ExpressionEditor::kSamples);
    EXPECT_TRUE(editor->message().startsWith(QStringLiteral("0 rad")))
        << editor->message().toStdString();
    EXPECT_TRUE(editor->message().contains(QStringLiteral("t = 0 s")))
        << editor->message().toStdString();
    EXPECT_FALSE(messageLabel()->styleSheet().contains(QStringLiteral("#d9534f")));
    EXPECT_TRUE(editor->lineEdit()->styleSheet().isEmpty());
    EXPECT_NE(curve(0)->pen().color(), curve(1)->pen().color());
    EXPECT_EQ(curve(1)->name(), QStringLiteral("d/dt [rad/s]"));
}

TEST_F(ExpressionEditorTest, ShowsWhatTypingChangedOnlyAfterAPause) {
    editor->setText(QStringLiteral("time"));
    type(QStringLiteral("3*time"));
    EXPECT_EQ(editor->previewValues().back(), 6.0);           // the state is current at once
    EXPECT_EQ(curve(0)->at(curve(0)->count() - 1).y(), 2.0);  // the plot not yet
    EXPECT_TRUE(
        QTest::qWaitFor([&] { return curve(0)->at(curve(0)->count() - 1).y() == 6.0; }, 2000));
}

TEST_F(ExpressionEditorTest, RefusesATypoWithItsReasonAndDoesNotCommitIt) {
    editor->setText(QStringLiteral("time"));
    QSignalSpy committed(editor, &ExpressionEditor::committed);
    type(QStringLiteral("2*tme"));
    QTest::keyClick(editor->lineEdit(), Qt::Key_Return);

    EXPECT_FALSE(editor->isValid());
    EXPECT_TRUE(editor->error().contains(QStringLiteral("tme"))) << editor->error().toStdString();
    EXPECT_EQ(editor->message(), editor->error());  // shown at once on Return
    EXPECT_TRUE(messageLabel()->styleSheet().contains(QStringLiteral("#d9534f")));
    EXPECT_TRUE(editor->lineEdit()->styleSheet().contains(QStringLiteral("border")));
    EXPECT_EQ(committed.count(), 0);
    EXPECT_EQ(editor->text(), QStringLiteral("2*tme"));  // stays in the field

    // The preview keeps the curve it showed, greyed: "time", not "2" passed on the way.
    ASSERT_EQ(editor->previewValues().size(), std::size_t(ExpressionEditor::kSamples));
    EXPECT_EQ(editor->previewValues(), editor->previewTimes());
    EXPECT_EQ(curve(0)->count(), ExpressionEditor::kSamples);
    EXPECT_EQ(curve(0)->pen().color(), curve(1)->pen().color());  // both grey
}

TEST_F(ExpressionEditorTest, RefusesAValueThatIsNotFiniteNamingTheFirstTime) {
    QSignalSpy committed(editor, &ExpressionEditor::committed);
    type(QStringLiteral("sqrt(1-time)"));  // NaN past 1 s
    QTest::keyClick(editor->lineEdit(), Qt::Key_Return);
    EXPECT_FALSE(editor->isValid());
    EXPECT_TRUE(editor->error().contains(QStringLiteral("not a number")))
        << editor->error().toStdString();
    EXPECT_GT(timeInMessage(), 1.0);
    EXPECT_LT(timeInMessage(), 1.02);
    EXPECT_EQ(committed.count(), 0);

    // sqrt(time − 1) is NaN from the start of [0, 2] s...
    type(QStringLiteral("sqrt(time-1)"));
    EXPECT_FALSE(editor->isValid());
    QTest::keyClick(editor->lineEdit(), Qt::Key_Return);
    EXPECT_EQ(timeInMessage(), 0.0) << editor->message().toStdString();

    // ...and a pole on a sample is infinite there.
    type(QStringLiteral("1/(time-1)"));
    QTest::keyClick(editor->lineEdit(), Qt::Key_Return);
    EXPECT_FALSE(editor->isValid());
    EXPECT_TRUE(editor->error().contains(QStringLiteral("infinite")))
        << editor->error().toStdString();
    EXPECT_EQ(timeInMessage(), 1.0);
    EXPECT_EQ(committed.count(), 0);
}

TEST_F(ExpressionEditorTest, SamplesTheRangeTheUserSets) {
    editor->setText(QStringLiteral("sqrt(time-1)"));
    EXPECT_FALSE(editor->isValid());  // NaN on [0, 1)
    auto* start = editor->findChild<QDoubleSpinBox*>(QStringLiteral("PreviewStart"));
    auto* end = editor->findChild<QDoubleSpinBox*>(QStringLiteral("PreviewEnd"));
    ASSERT_TRUE(start && end);
    end->setValue(3.0);
    start->setValue(1.0);
    EXPECT_EQ(editor->previewStart(), 1.0);
    EXPECT_EQ(editor->previewEnd(), 3.0);
    EXPECT_TRUE(editor->isValid()) << editor->error().toStdString();

    const auto& t = editor->previewTimes();
    ASSERT_EQ(t.size(), std::size_t(ExpressionEditor::kSamples));
    EXPECT_EQ(t.front(), 1.0);
    EXPECT_EQ(t[t.size() / 2], 2.0);
    EXPECT_EQ(t.back(), 3.0);
    for (std::size_t k = 0; k < t.size(); ++k)
        EXPECT_NEAR(editor->previewValues()[k], std::sqrt(t[k] - 1.0), 1e-12);
    auto* timeAxis = static_cast<QValueAxis*>(curve(0)->attachedAxes().at(0));
    EXPECT_EQ(timeAxis->min(), 1.0);
    EXPECT_EQ(timeAxis->max(), 3.0);

    // A start past the end moves the end, keeping the width.
    start->setValue(5.0);
    EXPECT_EQ(editor->previewStart(), 5.0);
    EXPECT_EQ(editor->previewEnd(), 7.0);
    EXPECT_EQ(editor->previewTimes().back(), 7.0);

    // Set by the caller; the boxes follow.
    editor->setPreviewRange(-1.0, 0.5);
    EXPECT_EQ(start->value(), -1.0);
    EXPECT_EQ(end->value(), 0.5);
    EXPECT_FALSE(editor->isValid());  // sqrt(time − 1) is NaN there: nothing left to show
    EXPECT_TRUE(editor->previewTimes().empty());
    EXPECT_EQ(curve(0)->count(), 0);
}

TEST_F(ExpressionEditorTest, CommitsAValidChangeOnceAndAnUnchangedTextNever) {
    editor->setText(QStringLiteral("time"));
    QSignalSpy committed(editor, &ExpressionEditor::committed);

    // Unchanged, or changed and typed back: nothing.
    QTest::keyClick(editor->lineEdit(), Qt::Key_Return);
    type(QStringLiteral("2*time"));
    type(QStringLiteral("time"));
    QTest::keyClick(editor->lineEdit(), Qt::Key_Return);
    EXPECT_EQ(committed.count(), 0);

    // A valid change: once, with its text; pressing Return again or leaving the field adds nothing.
    type(QStringLiteral("2*time"));
    QTest::keyClick(editor->lineEdit(), Qt::Key_Return);
    ASSERT_EQ(committed.count(), 1);
    EXPECT_EQ(committed.at(0).at(0).toString(), QStringLiteral("2*time"));
    QTest::keyClick(editor->lineEdit(), Qt::Key_Return);
    EXPECT_EQ(committed.count(), 1);

    // Focus out commits too.
    window.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    editor->lineEdit()->setFocus();
    type(QStringLiteral("4*time"));
    other->setFocus();
    ASSERT_TRUE(QTest::qWaitFor([&] { return committed.count() == 2; }, 2000));
    EXPECT_EQ(committed.at(1).at(0).toString(), QStringLiteral("4*time"));

    // setText is not a commit, and a text set is the one compared against.
    editor->setText(QStringLiteral("5*time"));
    EXPECT_EQ(committed.count(), 2);
    QTest::keyClick(editor->lineEdit(), Qt::Key_Return);
    EXPECT_EQ(committed.count(), 2);
}

}  // namespace
}  // namespace ui

namespace ui {
namespace {

// Names are offered as they are typed: the word before the cursor (any case) picks the
// completions, the one chosen replaces that word and the cursor goes after it; a number
// offers nothing.
TEST_F(ExpressionEditorTest, OffersTheNamesThatStartWithTheWordTypedAndInsertsTheOneChosen) {
    editor->setCompletions({QStringLiteral("DM("), QStringLiteral("DX("), QStringLiteral("crank"),
                            QStringLiteral("crank.pin"), QStringLiteral("qd(")});
    QCompleter* completer = editor->completer();
    ASSERT_TRUE(completer);
    editor->lineEdit()->setFocus();
    type(QStringLiteral("-0.1*cr"));
    EXPECT_EQ(completer->completionPrefix(), "cr");
    EXPECT_EQ(completer->completionCount(), 2);
    EXPECT_TRUE(completer->popup()->isVisible());
    if (qEnvironmentVariableIsSet("MOTUS_SCREENSHOT_DIR")) {
        QTest::qWait(100);
        QGuiApplication::primaryScreen()->grabWindow(0).save(
            qEnvironmentVariable("MOTUS_SCREENSHOT_DIR") + "/completion.png");
    }
    emit completer->activated(QStringLiteral("crank.pin"));
    EXPECT_EQ(editor->text(), "-0.1*crank.pin");
    EXPECT_EQ(editor->lineEdit()->cursorPosition(), editor->text().size());

    // A measure: the lower-case word finds it, its parenthesis comes with it.
    editor->lineEdit()->setText(QStringLiteral("k*"));
    editor->lineEdit()->end(false);
    QTest::keyClicks(editor->lineEdit(), QStringLiteral("dm"));
    EXPECT_EQ(completer->completionCount(), 1);
    emit completer->activated(QStringLiteral("DM("));
    EXPECT_EQ(editor->text(), "k*DM(");

    // A number is no name.
    completer->popup()->hide();
    QTest::keyClicks(editor->lineEdit(), QStringLiteral("0.5"));
    EXPECT_FALSE(completer->popup()->isVisible());
}

}  // namespace
}  // namespace ui
