#pragma once
// Answers the next modal QMessageBox named `objectName` by clicking the button labelled
// `answer` (mnemonics ignored), from a timer: the test goes on to the call that opens it.
// The timer belongs to `owner` and stops once it has answered.

#include <QAbstractButton>
#include <QApplication>
#include <QMessageBox>
#include <QTimer>

namespace ui::test {

inline void answerModal(QObject* owner, const QString& objectName, const QString& answer,
                        int* asked = nullptr) {
    auto* timer = new QTimer(owner);
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [timer, objectName, answer, asked] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || box->objectName() != objectName) return;
        for (QAbstractButton* b : box->buttons())
            if (b->text().remove('&') == answer) {
                timer->stop();
                timer->deleteLater();
                if (asked) ++*asked;
                b->click();
                return;
            }
    });
    timer->start();
}

}  // namespace ui::test
