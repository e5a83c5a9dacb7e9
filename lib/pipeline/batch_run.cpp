// run_batch: a batch's work split across ranks and worker threads, and its
// summary gathered on rank 0.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

#include "errors/error.h"
#include "files/output_batch.h"
#include "pipeline/batch.h"
#include "ranks/rank_context.h"

namespace osched {
namespace {

// Runs this rank's items (`mine`) on `jobs` threads, calling `progress`
// from this thread until all are done. Returns a row per item, filled at
// this rank's.
std::vector<BatchResult> run_share(const BatchOptions& opts, const std::vector<BatchItem>& items,
                                   const std::vector<size_t>& mine,
                                   const std::function<void(const BatchProgress&)>& progress) {
  const std::string fingerprint = batch_options_fingerprint(opts.cfg);
  std::vector<BatchResult> results(items.size());
  std::atomic<size_t> next{0}, done{0}, failed{0};
  std::mutex mu;
  std::condition_variable cv;
  std::string current;
  auto worker = [&] {
    for (size_t k; (k = next++) < mine.size();) {
      const BatchItem& item = items[mine[k]];
      {
        std::lock_guard<std::mutex> lock(mu);
        current = item.input;
      }
      BatchResult r =
          run_batch_item(item, batch_paths(item, opts.out_dir, opts.out_format), opts, fingerprint);
      failed += r.status == "failed";
      results[mine[k]] = std::move(r);
      ++done;
      cv.notify_one();
    }
  };
  std::vector<std::thread> pool;
  const int threads = std::min<int>(opts.jobs, static_cast<int>(std::max<size_t>(mine.size(), 1)));
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(worker);
  {
    std::unique_lock<std::mutex> lock(mu);
    while (done < mine.size()) {
      cv.wait_for(lock, std::chrono::milliseconds(200));
      progress({done, mine.size(), failed, current});
    }
  }
  for (auto& t : pool)
    t.join();
  progress({done, mine.size(), failed, current});
  return results;
}

// Every rank's rows, in file order, on every rank: `results` holds this
// rank's (`mine`).
std::vector<BatchResult> gather_rows(RankContext& ranks, const std::vector<size_t>& mine,
                                     std::vector<BatchResult> results) {
  std::string local;
  for (size_t i : mine) {
    nlohmann::json row = batch_result_json(results[i]);
    row["index"] = i;
    row["seconds"] = results[i].seconds;
    local += row.dump() + "\n";
  }
  const std::vector<std::string> all =
      ranks.size() > 1 ? ranks.allgather_strings(local) : std::vector{local};
  for (const std::string& part : all) {
    size_t pos = 0;
    while (pos < part.size()) {
      const size_t nl = part.find('\n', pos);
      auto row = nlohmann::json::parse(part.substr(pos, nl - pos));
      results[row.at("index").get<size_t>()] = batch_result_from_json(row);
      pos = nl + 1;
    }
  }
  return results;
}

void write_summaries(const std::string& out_dir, const std::vector<BatchResult>& results) {
  std::string jsonl, csv = batch_csv_header();
  for (const BatchResult& r : results) {
    jsonl += batch_result_json(r).dump() + "\n";
    csv += batch_csv_row(r);
  }
  OutputBatch out;
  out.add(out_dir + "/summary.jsonl", [&](const Emit& emit) { emit(jsonl); });
  out.add(out_dir + "/summary.csv", [&](const Emit& emit) { emit(csv); });
  out.commit();
}

} // namespace

std::vector<BatchResult> run_batch(const BatchOptions& opts, RankContext& ranks,
                                   const std::function<void(const BatchProgress&)>& progress) {
  const std::vector<BatchItem> items =
      collect_batch_inputs(opts.inputs, opts.list_file, opts.out_dir);
  if (items.empty())
    throw input_error("batch: no .json or .pb graph among the inputs");
  std::error_code ec;
  std::filesystem::create_directories(opts.out_dir, ec);
  if (ec)
    throw output_error(opts.out_dir + ": cannot create the output directory: " + ec.message());

  std::vector<size_t> mine;
  for (size_t i = static_cast<size_t>(ranks.rank()); i < items.size();
       i += static_cast<size_t>(ranks.size()))
    mine.push_back(i);
  const std::vector<BatchResult> results =
      gather_rows(ranks, mine, run_share(opts, items, mine, progress));
  // The other ranks wait for the summaries even when writing them fails.
  std::exception_ptr failure;
  if (ranks.rank() == 0) {
    try {
      write_summaries(opts.out_dir, results);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  ranks.barrier();
  if (failure)
    std::rethrow_exception(failure);
  return results;
}

} // namespace osched
