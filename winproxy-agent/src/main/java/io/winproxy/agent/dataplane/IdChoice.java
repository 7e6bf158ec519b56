package io.winproxy.agent.dataplane;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.policy.plan.HnsIds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who chooses the IDs of the objects winproxy creates, as learnt on this host. winproxy sends a GUID of its own
 * (carrying its mark, journaled before the create), which HNS is documented to honour for endpoints and networks
 * but not for load balancers. The assumption is checked where it is cheap: the first create of each kind is read back
 * by the ID HNS answered with, and every create's answer is compared with the request. When HNS gave another ID
 * ({@code ids-ignored}) or refused a caller GUID with {@code E_INVALIDARG} ({@code ids-rejected}), chosen IDs are
 * switched off for the process: creates then send no ID, and the GUID winproxy reserves serves only as the journal's
 * write-ahead record of the create until HNS's ID replaces it.
 *
 * <p>What was learnt is kept in the state directory ({@value #FILE_NAME}, one line), so that a restart starts with what
 * the host showed and {@code hns list} can say it; delete the file to make winproxy try its own IDs again (after an HNS
 * upgrade, say).
 *
 * <p>Not thread-safe: the sync thread writes; {@link #describe()} may be read from others (volatile state).
 */
public final class IdChoice {
    private static final Logger logger = LoggerFactory.getLogger(IdChoice.class);

    /** The kinds of object whose first create is read back. */
    enum Kind {
        LOAD_BALANCER("load balancer"), ENDPOINT("endpoint");

        final String text;

        Kind(String text) {
            this.text = text;
        }

        String withArticle() {
            return (text.startsWith("e") ? "an " : "a ") + text;
        }
    }

    private final Supplier<String> newId;
    private volatile boolean chosen = true;
    private volatile String learnt = "";
    private final boolean[] verified = new boolean[Kind.values().length];

    /** The file in the state directory that keeps what was learnt. */
    public static final String FILE_NAME = "hns-ids.txt";

    private final Path file;

    /** @param file where what was learnt is kept (null: nowhere, e.g. for read-only tools) */
    IdChoice(Supplier<String> newId, Path file) {
        this.newId = newId;
        this.file = file;
        read(file).ifPresent(text -> {
            chosen = false;
            learnt = text + " (learnt earlier, kept in " + file + ")";
        });
    }

    /** What an agent learnt and kept in a state directory, if anything. */
    public static Optional<String> read(Path file) {
        if (file == null || !Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8).strip();
            return text.isEmpty() ? Optional.empty() : Optional.of(text.lines().findFirst().orElse(text));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private void keep(String text) {
        if (file == null) {
            return;
        }
        try {
            Files.writeString(file, text + System.lineSeparator(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            logger.warn("Cannot keep what HNS showed about IDs in {}: {}", file, e.getMessage());
        }
    }

    /** A new ID for the write-ahead record of a create (lower-case). */
    String reserve() {
        return HnsIds.normalize(newId.get());
    }

    /** Whether creates send the reserved ID to HNS. */
    boolean chosen() {
        return chosen;
    }

    /** Whether the create of this kind that just succeeded must be read back (the first one). */
    boolean mustVerify(Kind kind) {
        return chosen && !verified[kind.ordinal()];
    }

    /** The first create of this kind was read back under the ID winproxy chose. */
    void verified(Kind kind) {
        verified[kind.ordinal()] = true;
    }

    /** HNS created an object under another ID than the one sent. */
    void ignored(Kind kind, String sent, String got) {
        if (chosen) {
            chosen = false;
            learnt = "HNS assigns its own IDs (" + kind.withArticle() + " created as " + sent + " got " + got + ")";
            keep(learnt);
            logger.atWarn().setMessage("HNS gave a created object another ID than the one sent; winproxy lets HNS "
                    + "choose IDs from now on and journals the IDs HNS returns").addKeyValue("kind", kind.text)
                    .addKeyValue("sent", sent).addKeyValue("got", got).log();
        }
    }

    /** HNS refused a caller-chosen ID with E_INVALIDARG. */
    void rejected(Kind kind, String sent) {
        if (chosen) {
            chosen = false;
            learnt = "HNS refuses caller-chosen IDs (E_INVALIDARG for " + kind.withArticle() + " created as " + sent + ")";
            keep(learnt);
            logger.atWarn().setMessage("HNS refused a caller-chosen ID (E_INVALIDARG); winproxy lets HNS choose IDs "
                    + "from now on").addKeyValue("kind", kind.text).addKeyValue("sent", sent).log();
        }
    }

    /**
     * Creates an object, sending the reserved ID when winproxy chooses IDs, and checks what HNS did with it: the
     * first create of each kind is read back under the ID HNS answered with; an answer with another ID, or
     * {@code E_INVALIDARG} for the ID sent (then retried without one), switches chosen IDs off (see the class comment).
     *
     * @param call creates the object with the given ID (null: none, HNS chooses) and returns the ID HNS answered
     * @param write  counts one HNS write
     * @return the ID of the created object (lower-case)
     */
    String create(Kind kind, String id, Function<String, String> call, Predicate<String> readBack, Runnable write) {
        String answered;
        write.run();
        if (chosen) {
            try {
                answered = call.apply(id);
            } catch (HnsException e) {
                if (e.hresult() != HResults.E_INVALIDARG) {
                    throw e;
                }
                rejected(kind, id);
                write.run();
                answered = call.apply(null);
            }
        } else {
            answered = call.apply(null);
        }
        String got = answered == null || answered.isEmpty() ? "" : HnsIds.normalize(answered);
        if (got.isEmpty()) {
            if (!chosen) {
                throw new IllegalStateException("HNS created " + kind.withArticle() + " without answering its ID");
            }
            return id;
        }
        if (chosen && !got.equals(id)) {
            ignored(kind, id, got);
        } else if (mustVerify(kind)) {
            if (readBack.test(got)) {
                verified(kind);
            } else {
                // The binding answers a create with the ID sent (it does not query), so HNS giving its own ID shows
                // only here. The object exists under an ID winproxy does not know: the next observe reads it as new
                // and the plan adopts it (its key or IP is desired); the reservation is remembered as vanished.
                ignored(kind, id, "an ID of its own (nothing found under the one sent)");
            }
        }
        return got;
    }


    /** One line for the start-up log, {@code /configz} and {@code hns} output. */
    public String describe() {
        if (chosen) {
            return "winproxy chooses HNS IDs (marked " + HnsIds.MARK + "...)"
                    + (verified[0] || verified[1] ? "; HNS honours them" : "; not verified yet");
        }
        return learnt;
    }
}
