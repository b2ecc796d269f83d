// Every algorithm file defines one AlgorithmInfo; this list is the registry's only input.
// To add an algorithm: write sim/algorithms/<collective>_<name>.cpp, declare it here,
// add it to kAlgorithms in sim/schedule/algorithm.cpp and to sim/CMakeLists.txt.
#pragma once
#include "sim/schedule/algorithm.h"

namespace collsim {

extern const AlgorithmInfo kAllReduceRing;
extern const AlgorithmInfo kAllReduceParameterServer;
extern const AlgorithmInfo kAllReduceDirect;
extern const AlgorithmInfo kAllReduceBinomialTree;
extern const AlgorithmInfo kAllReduceDoubleBinaryTree;
extern const AlgorithmInfo kAllReduceRecursiveDoubling;
extern const AlgorithmInfo kAllReduceRabenseifner;
extern const AlgorithmInfo kAllReduceHierarchical;
extern const AlgorithmInfo kAllGatherRing;
extern const AlgorithmInfo kAllGatherRecursiveDoubling;
extern const AlgorithmInfo kAllGatherBruck;
extern const AlgorithmInfo kAllGatherDirect;
extern const AlgorithmInfo kReduceScatterRing;
extern const AlgorithmInfo kReduceScatterRecursiveHalving;
extern const AlgorithmInfo kReduceScatterDirect;
extern const AlgorithmInfo kAllToAllDirect;
extern const AlgorithmInfo kAllToAllBruck;
extern const AlgorithmInfo kBroadcastBinomialTree;
extern const AlgorithmInfo kBroadcastChain;
extern const AlgorithmInfo kBroadcastScatterAllgather;
extern const AlgorithmInfo kBroadcastDirect;
extern const AlgorithmInfo kReduceBinomialTree;
extern const AlgorithmInfo kReduceRing;
extern const AlgorithmInfo kReduceDirect;
extern const AlgorithmInfo kGatherBinomialTree;
extern const AlgorithmInfo kGatherDirect;
extern const AlgorithmInfo kScatterBinomialTree;
extern const AlgorithmInfo kScatterDirect;
extern const AlgorithmInfo kBarrierDissemination;
extern const AlgorithmInfo kBarrierBinomialTree;
extern const AlgorithmInfo kSendRecvDirect;
extern const AlgorithmInfo kSendRecvRingShift;

// hierarchical: the ranks per node G it uses (options.ranks_per_node, or its default).
int hierarchical_ranks_per_node(int ranks, const AlgorithmOptions& options);
// chain broadcast: the slices it uses when --slices is 0.
int broadcast_chain_default_slices(const CollectiveSpec& spec);

}  // namespace collsim
