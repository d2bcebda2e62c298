package io.heliotrope.nbd.protocol;

/**
 * Wire constants of the NBD protocol (fixed newstyle), as named in the protocol
 * document {@code doc/proto.md} of the reference implementation.
 */
public final class NbdConstants {
    public static final long NBDMAGIC = 0x4e42444d41474943L;
    public static final long IHAVEOPT = 0x49484156454F5054L;
    public static final long OPTION_REPLY_MAGIC = 0x3e889045565a9L;
    public static final int REQUEST_MAGIC = 0x25609513;
    public static final int SIMPLE_REPLY_MAGIC = 0x67446698;
    public static final int STRUCTURED_REPLY_MAGIC = 0x668e33ef;

    public static final int FLAG_FIXED_NEWSTYLE = 1;
    public static final int FLAG_NO_ZEROES = 1 << 1;

    public static final int TRANSMISSION_HAS_FLAGS = 1;
    public static final int TRANSMISSION_READ_ONLY = 1 << 1;
    public static final int TRANSMISSION_SEND_FLUSH = 1 << 2;
    public static final int TRANSMISSION_SEND_FUA = 1 << 3;
    public static final int TRANSMISSION_SEND_TRIM = 1 << 5;
    public static final int TRANSMISSION_SEND_WRITE_ZEROES = 1 << 6;
    public static final int TRANSMISSION_SEND_DF = 1 << 7;
    public static final int TRANSMISSION_CAN_MULTI_CONN = 1 << 8;
    public static final int TRANSMISSION_SEND_CACHE = 1 << 10;

    public static final int OPT_EXPORT_NAME = 1;
    public static final int OPT_ABORT = 2;
    public static final int OPT_LIST = 3;
    public static final int OPT_STARTTLS = 5;
    public static final int OPT_INFO = 6;
    public static final int OPT_GO = 7;
    public static final int OPT_STRUCTURED_REPLY = 8;
    public static final int OPT_LIST_META_CONTEXT = 9;
    public static final int OPT_SET_META_CONTEXT = 10;

    public static final int REP_ACK = 1;
    public static final int REP_SERVER = 2;
    public static final int REP_INFO = 3;
    public static final int REP_META_CONTEXT = 4;
    public static final int REP_ERR_UNSUP = 0x80000001;
    public static final int REP_ERR_POLICY = 0x80000002;
    public static final int REP_ERR_INVALID = 0x80000003;
    public static final int REP_ERR_TLS_REQD = 0x80000005;
    public static final int REP_ERR_UNKNOWN = 0x80000006;
    public static final int REP_ERR_SHUTDOWN = 0x80000007;
    public static final int REP_ERR_TOO_BIG = 0x80000009;

    public static final int INFO_EXPORT = 0;
    public static final int INFO_NAME = 1;
    public static final int INFO_DESCRIPTION = 2;
    public static final int INFO_BLOCK_SIZE = 3;

    public static final int CMD_FLAG_FUA = 1;
    public static final int CMD_FLAG_NO_HOLE = 1 << 1;
    public static final int CMD_FLAG_DF = 1 << 2;
    public static final int CMD_FLAG_REQ_ONE = 1 << 3;

    public static final int REPLY_FLAG_DONE = 1;
    public static final int REPLY_TYPE_OFFSET_DATA = 1;
    public static final int REPLY_TYPE_BLOCK_STATUS = 5;
    public static final int REPLY_TYPE_ERROR = (1 << 15) + 1;

    public static final int STATE_HOLE = 1;
    public static final int STATE_ZERO = 1 << 1;

    /** The NBD header of a request: magic, flags, type, handle, offset, length. */
    public static final int REQUEST_HEADER_LENGTH = 28;
    /** Longest string (export name, context query) the protocol allows. */
    public static final int MAX_STRING_LENGTH = 4096;
    /** Longest option payload we read; longer ones are discarded and answered with {@code ERR_TOO_BIG}. */
    public static final int MAX_OPTION_LENGTH = 64 * 1024;
    /** Largest READ or WRITE payload we serve, advertised as the maximum block size. */
    public static final int MAX_PAYLOAD = 32 * 1024 * 1024;
    public static final int PREFERRED_BLOCK_SIZE = 4096;

    private NbdConstants() {}
}
