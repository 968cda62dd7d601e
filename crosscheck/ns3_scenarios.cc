// The ns-3 side of routerlab's crosscheck (ns3_side.py compiles this with cppyy): the
// dumbbell and the incast of grid.py as ns-3 3.44 simulations, and the counters both report.
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include <sstream>
#include <vector>

namespace xc {
using namespace ns3;

struct Flow {
    double start = 0;
    uint64_t rx = 0;
    uint64_t retx = 0;
    uint64_t rto_doublings = 0;
    uint64_t syns = 0;
    uint64_t recoveries = 0;
    uint32_t cwnd = 0, ssthresh = 0;  // the latest values (incast: read at each round's start)
};

struct State {
    std::vector<Flow> flows;
    std::vector<Ptr<Socket>> senders;
    // incast
    bool incast = false;
    uint64_t block = 0;
    uint32_t rounds = 0, round = 0, remaining = 0;
    Time roundStart;
    double firstRound = -1, lastEnd = -1;
    std::vector<double> fcts;
    std::vector<bool> done;
    // Per round, per flow: the window and ssthresh at the round's start and the timeouts in it.
    std::vector<std::vector<uint32_t>> roundCwnd, roundSsthresh, roundTimeouts;
};
static State S;

// Packets the traffic control layer of the congested node dropped: with no queue disc, a
// packet that finds its device queue full (stopped) is dropped there, not by the device.
static uint64_t g_tcDrops = 0;
static void OnTcDrop(Ptr<const Packet>) { g_tcDrops++; }
static void CountTcDrops(Ptr<Node> n) {
    g_tcDrops = 0;
    n->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext("TcDrop", MakeCallback(&OnTcDrop));
}

static void OnRetx(uint32_t i, Ptr<const Packet>, const TcpHeader&, const Address&, const Address&,
                   Ptr<const TcpSocketBase>) { S.flows[i].retx++; }

// A retransmission timeout doubles the RTO (capped at 60 s); so does a SYN retransmission,
// counted apart by its SYN. `LinuxRttSocket::NewAck` sets the RTO from the estimate and then
// back to the backed-off value, which can be exactly twice the estimate (both at the minimum):
// changes made there are no timeouts.
static bool g_inNewAck = false;
static void OnRto(uint32_t i, Time oldv, Time newv) {
    if (g_inNewAck) return;
    if (oldv.IsStrictlyPositive() && (newv == oldv + oldv || (newv == Seconds(60) && oldv < newv))) {
        S.flows[i].rto_doublings++;
        if (S.incast && S.round < S.roundTimeouts.size()) S.roundTimeouts[S.round][i]++;
    }
}

// A fast recovery entered (duplicate ACKs or SACK; a timeout enters CA_LOSS instead).
static void OnCongState(uint32_t i, TcpSocketState::TcpCongState_t oldv, TcpSocketState::TcpCongState_t newv) {
    if (newv == TcpSocketState::CA_RECOVERY && oldv != TcpSocketState::CA_RECOVERY) S.flows[i].recoveries++;
}

static void OnCwnd(uint32_t i, uint32_t, uint32_t v) { S.flows[i].cwnd = v; }
static void OnSsthresh(uint32_t i, uint32_t, uint32_t v) { S.flows[i].ssthresh = v; }

static void OnTx(uint32_t i, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    uint8_t f = h.GetFlags();
    if ((f & TcpHeader::SYN) && !(f & TcpHeader::ACK)) S.flows[i].syns++;
}

static void Fill(Ptr<Socket> s, uint32_t) {
    while (s->GetTxAvailable() > 0) {
        uint32_t n = std::min<uint32_t>(s->GetTxAvailable(), 65536);
        if (s->Send(Create<Packet>(n)) < 0) break;
    }
}
static void Connected(Ptr<Socket> s) { if (!S.incast) Fill(s, 0); }
static void Failed(Ptr<Socket>) {}

static void StartRound() {
    S.roundStart = Simulator::Now();
    if (S.firstRound < 0) S.firstRound = S.roundStart.GetSeconds();
    S.remaining = S.senders.size();
    for (size_t i = 0; i < S.done.size(); i++) S.done[i] = false;
    S.roundCwnd.emplace_back();
    S.roundSsthresh.emplace_back();
    S.roundTimeouts.emplace_back(S.flows.size(), 0);
    for (auto& f : S.flows) {
        S.roundCwnd.back().push_back(f.cwnd);
        S.roundSsthresh.back().push_back(f.ssthresh);
    }
    for (auto& s : S.senders) s->Send(Create<Packet>(S.block));
}

static void Received(uint32_t i, Ptr<Socket> s) {
    Ptr<Packet> p;
    while ((p = s->Recv())) S.flows[i].rx += p->GetSize();
    if (!S.incast || S.round >= S.rounds || S.done[i]) return;
    if (S.flows[i].rx >= (uint64_t)(S.round + 1) * S.block) {
        S.done[i] = true;
        S.fcts.push_back((Simulator::Now() - S.roundStart).GetSeconds());
        if (--S.remaining == 0) {
            S.lastEnd = Simulator::Now().GetSeconds();
            if (++S.round < S.rounds) Simulator::ScheduleNow(&StartRound);
        }
    }
}

// `pcap_trace.py`: a directory for a pcap of every sender's port and the switch's port (incast), or
// none. Named after the ports, as routerlab names its captures.
static std::string g_pcapDir;
void SetPcapDir(std::string dir) { g_pcapDir = dir; }

static bool AcceptAll(Ptr<Socket>, const Address&) { return true; }
static void Accepted(uint32_t i, Ptr<Socket> s, const Address&) {
    s->SetRecvCallback(MakeBoundCallback(&Received, i));
}
// Incast: the flow an accepted connection belongs to, by its sender's address.
static std::vector<Ipv4Address> g_senderAddr;
static void AcceptedBySender(Ptr<Socket> s, const Address& from) {
    Ipv4Address a = InetSocketAddress::ConvertFrom(from).GetIpv4();
    for (uint32_t i = 0; i < g_senderAddr.size(); i++)
        if (g_senderAddr[i] == a) { s->SetRecvCallback(MakeBoundCallback(&Received, i)); return; }
}

static void Listen(Ptr<Node> n, Callback<void, Ptr<Socket>, const Address&> accepted) {
    Ptr<Socket> l = Socket::CreateSocket(n, TcpSocketFactory::GetTypeId());
    l->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9));
    l->Listen();
    l->SetAcceptCallback(MakeCallback(&AcceptAll), accepted);
}

// ns-3's TCP with RTT samples and the RTO's backoff as Linux and RFC 6298 have them
// (`tcp_clean_rtx_queue`, `tcp_ack_update_rtt`): a sample from the send time of a
// never-retransmitted segment, from the timestamp echo only for a retransmitted one; send
// times kept across a timeout; and the backed-off RTO kept until a sample comes (RFC 6298 §5).
// ns-3's own takes every sample from the echo when timestamps are on (whole milliseconds),
// `ReTxTimeout` clears its send history (`m_history.clear()`), so that no sample comes until
// data first sent after the timeout is acknowledged, and `NewAck` ends the backoff on any ACK
// of new data.
class LinuxRttSocket : public TcpSocketBase {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("xc::LinuxRttSocket")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<LinuxRttSocket>();
        return tid;
    }

  protected:
    Time CalculateRttSample(const TcpHeader& h, const RttHistory& e) override {
        Time rtt;
        if (h.GetAckNumber() >= e.seq + SequenceNumber32(e.count)) {
            if (!e.retx) {
                rtt = Simulator::Now() - e.time;
            } else if (m_timestampEnabled && h.HasOption(TcpOption::TS)) {
                auto ts = DynamicCast<const TcpOptionTS>(h.GetOption(TcpOption::TS));
                rtt = TcpOptionTS::ElapsedTimeFromTsValue(ts->GetEcho());
                if (rtt.IsZero()) rtt = MicroSeconds(1);
            }
        }
        return rtt;
    }
    void EstimateRtt(const TcpHeader& h) override {
        // Karn's rule over the whole ACK, as Linux (`FLAG_RETRANS_DATA_ACKED`): no send-time
        // sample when any retransmitted segment is among those it acknowledges (ns-3 looks at
        // the oldest only).
        for (auto& e : m_history) {
            if (e.seq >= h.GetAckNumber()) break;
            if (e.retx && !m_history.empty()) { m_history.front().retx = true; break; }
        }
        uint32_t before = m_rtt->GetNSamples();
        TcpSocketBase::EstimateRtt(h);
        if (m_rtt->GetNSamples() != before) m_backedOff = false;
    }
    void ReTxTimeout() override {
        auto kept = m_history;
        SequenceNumber32 head = m_txBuffer->HeadSequence();
        TcpSocketBase::ReTxTimeout();
        if (m_history.empty() && !kept.empty()) {
            m_history = kept;  // the timeout resent the head: its sample is ambiguous (Karn)
            for (auto& e : m_history)
                if (head >= e.seq && head < e.seq + SequenceNumber32(e.count)) e.retx = true;
        }
        m_backedOff = true;
    }
    void NewAck(const SequenceNumber32& seq, bool resetRto) override {
        Time backedOff = m_rto;
        g_inNewAck = true;
        TcpSocketBase::NewAck(seq, resetRto);
        if (resetRto && m_backedOff && m_retxEvent.IsPending()) {
            // No sample since the timeout: the timer restarts with the backed-off RTO.
            m_retxEvent.Cancel();
            m_rto = backedOff;
            m_retxEvent = Simulator::Schedule(m_rto, &LinuxRttSocket::ReTxTimeout, this);
        }
        g_inNewAck = false;
    }
    Ptr<TcpSocketBase> Fork() override { return CopyObject<LinuxRttSocket>(this); }

  private:
    bool m_backedOff{false};
};

// ns-3's TCP entering fast recovery from CWR as Linux does. ns-3's `DupAck` enters recovery
// only from CA_DISORDER: in CA_CWR (the reduction after an ECN echo) it counts duplicate ACKs
// and does nothing more (`ProcessAck`'s CWR branch: "TODO: need to check behavior if marking
// is compounded by loss"), so a loss found during a CWR waits for the retransmission timer.
// Linux's `tcp_fastretrans_alert` enters recovery from CWR as from Open or Disorder, and
// `tcp_enter_recovery` goes on with the reduction under way (`tcp_in_cwnd_reduction`): the
// ssthresh is not cut a second time. And an ECN echo during a recovery or after a timeout:
// ns-3's `ReceivedAck` enters CWR from any state but CWR (leaving Recovery or Loss, and
// cutting ssthresh again), where Linux's `tcp_enter_cwr` acts only from Open or Disorder (it
// is already reducing) and answers the echo with CWR. This socket lets `DupAck` take its
// Disorder path when that ACK would enter recovery, keeps the CWR's ssthresh, and takes an
// echo during Recovery or Loss as answered by that reduction.
class LinuxCwrSocket : public TcpSocketBase {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("xc::LinuxCwrSocket")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<LinuxCwrSocket>();
        return tid;
    }

  protected:
    void ReceivedAck(Ptr<Packet> p, const TcpHeader& h) override {
        SequenceNumber32 ack = h.GetAckNumber();
        bool reducing = m_tcb->m_congState == TcpSocketState::CA_RECOVERY ||
                        m_tcb->m_congState == TcpSocketState::CA_LOSS;
        bool echo = m_tcb->m_ecnState != TcpSocketState::ECN_DISABLED &&
                    (h.GetFlags() & TcpHeader::ECE) && ack > m_txBuffer->HeadSequence() &&
                    m_ecnEchoSeq < ack;
        if (reducing && echo) m_ecnEchoSeq = ack;  // `ReceivedAck` then enters no CWR
        TcpSocketBase::ReceivedAck(p, h);
        if (reducing && echo && m_tcb->m_ecnState != TcpSocketState::ECN_DISABLED)
            m_tcb->m_ecnState = TcpSocketState::ECN_ECE_RCVD;  // the next data carries CWR
    }
    void ProcessAck(const SequenceNumber32& ack, bool scoreboardUpdated, uint32_t delivered,
                    const SequenceNumber32& oldHead, bool receivedData) override {
        bool dup = m_sackEnabled ? scoreboardUpdated
                                 : ack == oldHead && ack < m_tcb->m_highTxMark && !receivedData;
        bool recover = m_tcb->m_congState == TcpSocketState::CA_CWR && dup &&
                       ((m_dupAckCount + 1 == m_retxThresh &&
                         (m_highRxAckMark >= m_recover || !m_recoverActive)) ||
                        m_txBuffer->IsLost(m_highRxAckMark));
        uint32_t ssthresh = m_tcb->m_ssThresh;
        if (recover) m_tcb->m_congState = TcpSocketState::CA_DISORDER;
        TcpSocketBase::ProcessAck(ack, scoreboardUpdated, delivered, oldHead, receivedData);
        if (!recover) return;
        if (m_tcb->m_congState == TcpSocketState::CA_RECOVERY) m_tcb->m_ssThresh = ssthresh;
        else if (m_tcb->m_congState == TcpSocketState::CA_DISORDER) m_tcb->m_congState = TcpSocketState::CA_CWR;
    }
    Ptr<TcpSocketBase> Fork() override { return CopyObject<LinuxCwrSocket>(this); }
};

// ns-3's TCP growing the window on the ACK that ends a timeout's recovery as Linux and RFC 5681
// §3.1 do. ns-3's `ProcessAck` leaves CA_LOSS on an ACK at or beyond the recovery point and
// passes the congestion control only the segments above that point ("Recalculate the segs
// acked, that are from m_recover to ackNumber"): an ACK that covers up to the recovery point
// exactly, the usual end of a timeout's recovery, grows the window by nothing, although every
// ACK before it in CA_LOSS grew it. Linux's `tcp_ack` grows the window by everything the ACK
// delivered (`tcp_cong_control`, after `tcp_fastretrans_alert` has left Loss). This socket
// moves the recovery point, for that ACK only, to where ns-3 then counts the segments the
// ACK delivered, as it does on every other ACK (with the bytes short of a segment carried).
class LinuxLossExitSocket : public TcpSocketBase {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("xc::LinuxLossExitSocket")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<LinuxLossExitSocket>();
        return tid;
    }

  protected:
    void ProcessAck(const SequenceNumber32& ack, bool scoreboardUpdated, uint32_t delivered,
                    const SequenceNumber32& oldHead, bool receivedData) override {
        bool exits = m_tcb->m_congState == TcpSocketState::CA_LOSS && ack >= m_recover && ack > oldHead;
        SequenceNumber32 recover = m_recover;
        if (exits) {
            uint32_t seg = m_tcb->m_segmentSize;
            uint32_t segs = delivered / seg + (m_bytesAckedNotProcessed + delivered % seg >= seg ? 1 : 0);
            m_recover = ack - segs * seg;  // `ProcessAck` counts (ack - m_recover) / seg
        }
        TcpSocketBase::ProcessAck(ack, scoreboardUpdated, delivered, oldHead, receivedData);
        if (exits) m_recover = recover;
    }
    Ptr<TcpSocketBase> Fork() override { return CopyObject<LinuxLossExitSocket>(this); }
};

// The senders' sockets: ns-3's own (TcpSocketBase), or one of the classes above, each changing
// one behaviour; with the congestion control and recovery `Defaults` chose.
static TypeId g_senderSocket = TcpSocketBase::GetTypeId();
static TypeId g_cc, g_recovery;

static Ptr<Socket> NewSocket(Ptr<Node> n) {
    if (g_senderSocket == TcpSocketBase::GetTypeId())
        return Socket::CreateSocket(n, TcpSocketFactory::GetTypeId());
    Ptr<TcpL4Protocol> tcp = n->GetObject<TcpL4Protocol>();
    ObjectFactory socket, rtt, cc, recovery;
    socket.SetTypeId(g_senderSocket);
    Ptr<TcpSocketBase> s = socket.Create<TcpSocketBase>();
    s->SetNode(n);
    s->SetTcp(tcp);
    rtt.SetTypeId(RttMeanDeviation::GetTypeId());
    cc.SetTypeId(g_cc);
    recovery.SetTypeId(g_recovery);
    s->SetRtt(rtt.Create<RttEstimator>());
    s->SetCongestionControlAlgorithm(cc.Create<TcpCongestionOps>());
    s->SetRecoveryAlgorithm(recovery.Create<TcpRecoveryOps>());
    tcp->AddSocket(s);
    return s;
}

static void Open(uint32_t i, Ptr<Node> n, Ipv4Address dst) {
    Ptr<Socket> s = NewSocket(n);
    s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&OnRetx, i));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, i));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
    if (S.incast) {  // read at each round's start
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
        s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, i));
    }
    s->Bind();
    s->SetConnectCallback(MakeCallback(&Connected), MakeCallback(&Failed));
    if (S.incast) S.senders[i] = s;
    else s->SetSendCallback(MakeCallback(&Fill));
    s->Connect(InetSocketAddress(dst, 9));
}

// ns-3's PRR counting each delivered byte once, as RFC 6937 (and Linux, and routerlab) do:
// ns-3's own `TcpPrrRecovery::DoRecovery` adds a segment to prr_delivered for every duplicate
// ACK (while prr_delivered < RecoverFS) on top of the bytes that ACK SACKed.
class Rfc6937Prr : public TcpPrrRecovery {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("xc::Rfc6937Prr")
                                .SetParent<TcpPrrRecovery>()
                                .SetGroupName("Internet")
                                .AddConstructor<Rfc6937Prr>();
        return tid;
    }
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t delivered, bool) override {
        TcpPrrRecovery::DoRecovery(tcb, delivered, false);
    }
    Ptr<TcpRecoveryOps> Fork() override { return CopyObject<Rfc6937Prr>(this); }
};

static void Defaults(const std::string& cc, double minRtoMs, bool ts, bool hystart, bool ecn, bool rfcPrr) {
    std::string type = cc == "cubic" ? "ns3::TcpCubic" : cc == "dctcp" ? "ns3::TcpDctcp" : "ns3::TcpNewReno";
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(type)));
    TypeId prr = rfcPrr ? Rfc6937Prr::GetTypeId() : TypeId::LookupByName("ns3::TcpPrrRecovery");
    g_cc = TypeId::LookupByName(type);
    g_recovery = prr;
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(prr));
    // The MSS less the timestamps' 12 bytes, as Linux and routerlab send it.
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(ts ? 1448 : 1460));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(16 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(16 << 20));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(100));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds((int64_t)(minRtoMs * 1000))));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(NanoSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(ts));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue(cc == "dctcp" || ecn ? "On" : "Off"));
}

static NetDeviceContainer Link(Ptr<Node> a, Ptr<Node> b, std::string rate, Time delay, uint32_t qpkts) {
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetChannelAttribute("Delay", TimeValue(delay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue(std::to_string(qpkts) + "p"));
    return p2p.Install(a, b);
}

static uint64_t DeviceDrops(Ptr<NetDevice> d) {
    return DynamicCast<PointToPointNetDevice>(d)->GetQueue()->GetTotalDroppedPackets();
}

static std::string Report(uint64_t drops, double end) {
    std::ostringstream o;
    o.precision(12);
    o << "{\"end\":" << end << ",\"drops\":" << drops << ",\"flows\":[";
    for (size_t i = 0; i < S.flows.size(); i++) {
        const Flow& f = S.flows[i];
        o << (i ? "," : "") << "{\"start\":" << f.start << ",\"rx\":" << f.rx << ",\"retx\":" << f.retx
          << ",\"rto_doublings\":" << f.rto_doublings << ",\"syns\":" << f.syns
          << ",\"recoveries\":" << f.recoveries << "}";
    }
    o << "],\"fcts\":[";
    for (size_t i = 0; i < S.fcts.size(); i++) o << (i ? "," : "") << S.fcts[i];
    auto table = [&](const char* key, const std::vector<std::vector<uint32_t>>& t) {
        o << ",\"" << key << "\":[";
        for (size_t r = 0; r < t.size(); r++) {
            o << (r ? ",[" : "[");
            for (size_t i = 0; i < t[r].size(); i++) o << (i ? "," : "") << t[r][i];
            o << "]";
        }
        o << "]";
    };
    o << "]";
    table("round_cwnd", S.roundCwnd);
    table("round_ssthresh", S.roundSsthresh);
    table("round_timeouts", S.roundTimeouts);
    o << ",\"first_round\":" << S.firstRound << ",\"last_end\":" << S.lastEnd << ",\"rounds_done\":" << S.round << "}";
    return o.str();
}

std::string Dumbbell(uint32_t n, std::string cc, double bnMbps, uint32_t buf, int32_t mark,
                     double accessMs, double bnMs, double duration, double minRtoMs,
                     bool ts, bool hystart, bool useRed, bool ecn, bool rfcPrr, bool linuxCwr,
                     std::vector<double> starts) {
    S = State();
    g_senderSocket = linuxCwr ? LinuxCwrSocket::GetTypeId() : TcpSocketBase::GetTypeId();
    // Streams numbered from 0 in every run, whatever ran before in this process (RED draws).
    RngSeedManager::ResetNextStreamIndex();
    Defaults(cc, minRtoMs, ts, hystart, ecn, rfcPrr);
    NodeContainer snd, rcv, rt;
    snd.Create(n); rcv.Create(n); rt.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();
    std::ostringstream bn; bn << bnMbps << "Mbps";
    bool disc = mark >= 0 || useRed;  // a queue disc holds the buffer, the device one packet
    NetDeviceContainer bottleneck = Link(rt.Get(0), rt.Get(1), bn.str(), MicroSeconds(bnMs * 1000), disc ? 1 : buf);
    std::vector<NetDeviceContainer> access;
    for (uint32_t i = 0; i < n; i++) {
        access.push_back(Link(snd.Get(i), rt.Get(0), "1Gbps", MicroSeconds(accessMs * 1000), 1000));
        access.push_back(Link(rt.Get(1), rcv.Get(i), "1Gbps", MicroSeconds(accessMs * 1000), 1000));
    }
    Ipv4AddressHelper ip("10.0.0.0", "255.255.255.0");
    ip.Assign(bottleneck); ip.NewNetwork();
    std::vector<Ipv4Address> rcvAddr;
    for (uint32_t i = 0; i < n; i++) {
        ip.Assign(access[2 * i]); ip.NewNetwork();
        rcvAddr.push_back(ip.Assign(access[2 * i + 1]).GetAddress(1)); ip.NewNetwork();
    }
    TrafficControlHelper tch;
    tch.Uninstall(bottleneck);
    for (auto& d : access) tch.Uninstall(d);
    Ptr<QueueDisc> red;
    if (mark >= 0) {
        // DCTCP marking at K packets waiting: the device holds one, the RED queue disc the rest.
        TrafficControlHelper t;
        t.SetRootQueueDisc("ns3::RedQueueDisc", "UseEcn", BooleanValue(true), "UseHardDrop", BooleanValue(false),
                           "MeanPktSize", UintegerValue(1500), "QW", DoubleValue(1.0),
                           "MinTh", DoubleValue(mark - 1), "MaxTh", DoubleValue(mark - 1),
                           "MaxSize", QueueSizeValue(QueueSize(std::to_string(buf - 1) + "p")));
        red = t.Install(bottleneck.Get(0)).Get(0);
        t.Install(bottleneck.Get(1));
    } else if (useRed) {
        // RED on ns-2's defaults (ns-3's own LInterm is 50: max_p 0.02).
        TrafficControlHelper t;
        t.SetRootQueueDisc("ns3::RedQueueDisc", "UseEcn", BooleanValue(ecn), "UseHardDrop", BooleanValue(true),
                           "MeanPktSize", UintegerValue(1500), "QW", DoubleValue(0.002),
                           "MinTh", DoubleValue(5), "MaxTh", DoubleValue(15), "LInterm", DoubleValue(10),
                           "Gentle", BooleanValue(true), "Wait", BooleanValue(true),
                           "LinkBandwidth", DataRateValue(DataRate(bn.str())),
                           "LinkDelay", TimeValue(MicroSeconds(bnMs * 1000)),
                           "MaxSize", QueueSizeValue(QueueSize(std::to_string(buf - 1) + "p")));
        red = t.Install(bottleneck.Get(0)).Get(0);
        t.Install(bottleneck.Get(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    CountTcDrops(rt.Get(0));
    S.flows.resize(n);
    S.senders.resize(n);
    for (uint32_t i = 0; i < n; i++) {
        S.flows[i].start = starts[i];
        Listen(rcv.Get(i), MakeBoundCallback(&Accepted, i));
        Simulator::Schedule(Seconds(starts[i]), &Open, i, snd.Get(i), rcvAddr[i]);
    }
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    uint64_t drops = g_tcDrops + DeviceDrops(bottleneck.Get(0)) + (red ? red->GetStats().nTotalDroppedPackets : 0);
    std::string out = Report(drops, duration);
    Simulator::Destroy();
    return out;
}

std::string Incast(uint32_t n, uint32_t buf, double minRtoMs, uint64_t block, uint32_t rounds,
                   double gbps, double delayUs, double firstRound, double duration,
                   bool ts, bool linuxRtt, bool rfcPrr, bool linuxLossExit, std::vector<double> opens,
                   std::vector<double> accessDelaysUs) {
    S = State();
    g_senderSocket = linuxRtt        ? LinuxRttSocket::GetTypeId()
                     : linuxLossExit ? LinuxLossExitSocket::GetTypeId()
                                     : TcpSocketBase::GetTypeId();
    RngSeedManager::ResetNextStreamIndex();
    S.incast = true;
    S.block = block;
    S.rounds = rounds;
    Defaults("newreno", minRtoMs, ts, true, false, rfcPrr);
    NodeContainer snd, sw, rcv;
    snd.Create(n); sw.Create(1); rcv.Create(1);
    InternetStackHelper stack;
    stack.InstallAll();
    std::ostringstream rate; rate << gbps << "Gbps";
    NetDeviceContainer port = Link(sw.Get(0), rcv.Get(0), rate.str(), MicroSeconds(delayUs), buf);
    std::vector<NetDeviceContainer> access;
    for (uint32_t i = 0; i < n; i++)
        access.push_back(Link(snd.Get(i), sw.Get(0), rate.str(), NanoSeconds(int64_t(accessDelaysUs[i] * 1000 + 0.5)), 1000));
    Ipv4AddressHelper ip("10.0.0.0", "255.255.255.0");
    Ipv4Address dst = ip.Assign(port).GetAddress(1); ip.NewNetwork();
    g_senderAddr.clear();
    for (uint32_t i = 0; i < n; i++) { g_senderAddr.push_back(ip.Assign(access[i]).GetAddress(0)); ip.NewNetwork(); }
    TrafficControlHelper tch;
    tch.Uninstall(port);
    for (auto& d : access) tch.Uninstall(d);
    if (!g_pcapDir.empty()) {
        PointToPointHelper pcap;
        pcap.EnablePcap(g_pcapDir + "/switch_to_r0.pcap", port.Get(0), false, true);
        for (uint32_t i = 0; i < n; i++)
            pcap.EnablePcap(g_pcapDir + "/s" + std::to_string(i) + "_to_switch.pcap", access[i].Get(0), false, true);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    CountTcDrops(sw.Get(0));
    S.flows.resize(n);
    S.senders.resize(n);
    S.done.resize(n);
    Listen(rcv.Get(0), MakeCallback(&AcceptedBySender));
    for (uint32_t i = 0; i < n; i++) {
        S.flows[i].start = opens[i];
        Simulator::Schedule(Seconds(opens[i]), &Open, i, snd.Get(i), dst);
    }
    Simulator::Schedule(Seconds(firstRound), &StartRound);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    double end = Simulator::Now().GetSeconds();
    std::string out = Report(g_tcDrops + DeviceDrops(port.Get(0)), end);
    Simulator::Destroy();
    return out;
}
}  // namespace xc
