package io.winproxy.hns.emulator;

/** The native-level HCN call kinds the emulator's journal counts ({@code HcnEnumerateXxx}, {@code HcnOpenXxx}, ...). */
public enum HnsCall {
    ENUMERATE, OPEN, QUERY, CLOSE, CREATE, MODIFY, DELETE;

    /** Create, modify and delete change HNS state; the others only read it. */
    public boolean isWrite() {
        return this == CREATE || this == MODIFY || this == DELETE;
    }
}
