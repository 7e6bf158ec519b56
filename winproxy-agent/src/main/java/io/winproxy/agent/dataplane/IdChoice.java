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
 * ({@code ids-ignored}) or refused a caller GUID ({@code ids-rejected}: a create that failed with a code an ID refusal
 * may have, and succeeded when retried once with the same document and no ID), chosen IDs are switched off: creates then send no ID, and the GUID winproxy reserves serves only as the journal's
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
    /** A create failed with E_FAIL under a chosen ID and succeeded without: the next one decides. */
    private boolean suspectedFail;
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

    /**
     * HNS refused a caller-chosen ID: the create failed with {@code code} and the same document without an ID was
     * then accepted.
     */
    void rejected(Kind kind, String object, String sent, int code) {
        if (code == HResults.E_FAIL && !suspectedFail) {
            // E_FAIL is also what a transient failure answers: one object is not proof, a second in a row is.
            suspectedFail = true;
            logger.atInfo().setMessage("HNS failed a create with a chosen ID (E_FAIL) and accepted it without one; "
                    + "concluding only if the next create shows the same").addKeyValue("kind", kind.text)
                    .addKeyValue("object", object).log();
            return;
        }
        if (chosen) {
            chosen = false;
            learnt = "HNS refuses caller-chosen IDs (" + HResults.describe(code) + " for " + kind.withArticle()
                    + (object == null || object.isEmpty() ? "" : " (" + object + ")") + " created as " + sent
                    + "; the same document without an ID was accepted)";
            keep(learnt);
            logger.atWarn().setMessage("HNS refused a caller-chosen ID and accepted the same document without one; "
                    + "winproxy lets HNS choose IDs from now on").addKeyValue("kind", kind.text)
                    .addKeyValue("object", object).addKeyValue("sent", sent)
                    .addKeyValue("hresult", HResults.describe(code)).log();
        }
    }

    /**
     * The codes with which an HNS build might refuse a caller-chosen GUID: {@code E_INVALIDARG}, the HCN invalid-JSON
     * and GUID-conversion codes, and {@code E_FAIL}. A create failing so is retried once without the ID; only that
     * retry succeeding shows that the ID was refused.
     */
    static boolean mayBeIdRefusal(int hresult) {
        return hresult == HResults.E_INVALIDARG || hresult == HResults.HCN_E_INVALID_JSON
                || hresult == HResults.HCN_E_GUID_CONVERSION_FAILURE || hresult == HResults.E_FAIL;
    }

    /**
     * Creates an object, sending the reserved ID when winproxy chooses IDs, and checks what HNS did with it: the
     * first create of each kind is read back under the ID HNS answered with; an answer with another ID switches chosen
     * IDs off. A create refused with one of the {@link #mayBeIdRefusal codes an ID refusal may have} is retried once
     * with no ID: when that succeeds, chosen IDs are switched off (see the class comment); when it fails too, the
     * document itself is at fault and a {@link DocumentRefusedException} says so (nothing is learnt or kept).
     *
     * @param object names the object for logs and what is learnt (a load balancer's key, an endpoint's IP)
     * @param call   creates the object with the given ID (null: none, HNS chooses) and returns the ID HNS answered
     * @param write  counts one HNS write
     * @return the ID of the created object (lower-case)
     * @throws DocumentRefusedException when the document is refused with and without the ID
     */
    String create(Kind kind, String object, String id, Function<String, String> call, Predicate<String> readBack,
                  Runnable write) {
        String answered;
        boolean sentNone = !chosen;
        write.run();
        if (chosen) {
            try {
                answered = call.apply(id);
            } catch (HnsException e) {
                if (!mayBeIdRefusal(e.hresult())) {
                    throw e;
                }
                write.run();
                try {
                    answered = call.apply(null);
                } catch (HnsException retry) {
                    throw new DocumentRefusedException(kind.text, object, e, retry);
                }
                sentNone = true;
                rejected(kind, object, id, e.hresult());
            }
        } else {
            answered = call.apply(null);
        }
        String got = answered == null || answered.isEmpty() ? "" : HnsIds.normalize(answered);
        if (got.equals(id)) {
            // One string for the ID: the one the journal recorded (sent), not a copy parsed from HNS's answer; at
            // 111,000 objects each copy kept by the enumerate table and the drift rotation weighs 9 MB.
            got = id;
        }
        if (sentNone) {
            if (got.isEmpty()) {
                throw new IllegalStateException("HNS created " + kind.withArticle() + " without answering its ID");
            }
            return got;
        }
        if (got.isEmpty()) {
            return id;
        }
        if (got.equals(id)) {
            suspectedFail = false;
        }
        if (!got.equals(id)) {
            ignored(kind, id, got);
        } else if (mustVerify(kind)) {
            Boolean found = readBack(kind, got, readBack);
            if (found == null) {
                return got; // inconclusive: the next create of this kind reads back again
            }
            if (found) {
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


    /**
     * Reads a created object back; null when the read failed with another code than "not found" (an open of an ID
     * may answer a code of its own; the next enumerate settles whether the object exists, not an exception here).
     */
    private static Boolean readBack(Kind kind, String id, Predicate<String> readBack) {
        try {
            return readBack.test(id);
        } catch (HnsException e) {
            logger.atDebug().setMessage("Read-back of a created object failed; not concluding anything from it")
                    .addKeyValue("kind", kind.text).addKeyValue("id", id).addKeyValue("hresult", e.hresultName())
                    .log();
            return null;
        }
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
