package io.winproxy.agent.state;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The Win32 edge of the state directory's protection: read and set a directory's owner and DACL. */
interface FileSecurity {

    /** A directory's owner and DACL. */
    record Descriptor(String ownerSid, Optional<List<Ace>> dacl) {
    }

    /** The owner and DACL of {@code path} ({@code GetNamedSecurityInfo}). */
    Descriptor read(Path path) throws IOException;

    /**
     * Sets {@code path}'s owner and a protected DACL (inheritance from the parent removed) of {@code aces}
     * ({@code SetNamedSecurityInfo}).
     */
    void setProtected(Path path, String ownerSid, List<Ace> aces) throws IOException;
}
